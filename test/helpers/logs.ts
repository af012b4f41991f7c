// Helpers for tests that send logs and read what was stored.
import type { ClickHouseStore } from '../../src/stores/clickhouse.js';
import type { TestService } from './service.js';

export interface SentLog {
  log_id?: string;
  agent?: string;
  event: string;
  value: number;
  occurred_at?: string;
  meta?: unknown;
}

/** Sends the logs in batches of at most 250 and expects each batch to be accepted. */
export async function sendLogs(svc: TestService, token: string, logs: readonly SentLog[], baseUrl = svc.url): Promise<void> {
  for (let i = 0; i < logs.length; i += 250) {
    const res = await svc.requestTo(baseUrl, 'POST', '/v1.0/logs', { token, body: logs.slice(i, i + 250) });
    if (res.status !== 200) throw new Error(`batch at ${i}: ${res.status} ${res.text}`);
  }
}

export async function queryRows<T>(clickhouse: ClickHouseStore, query: string, params: Record<string, unknown> = {}): Promise<T[]> {
  const result = await clickhouse.client.query({ query, query_params: params, format: 'JSONEachRow' });
  return result.json<T>();
}

/** Rows of the workspace in the raw logs table. */
export async function storedLogCount(clickhouse: ClickHouseStore, workspaceId: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(clickhouse, 'SELECT count() AS n FROM logs WHERE workspace_id = {ws:String}', { ws: workspaceId });
  return row!.n;
}

export async function eventIdOf(svc: TestService, token: string, agent: string, event: string): Promise<string> {
  const res = await svc.request<{ event_id: string; agent: string; event: string }[]>('GET', '/v1.0/events?limit=1000', { token });
  const found = res.body.find((d) => d.agent === agent && d.event === event);
  if (!found) throw new Error(`no event definition ${agent}/${event}`);
  return found.event_id;
}

export interface Totals {
  count: number;
  value: number;
  squares: number;
  min: number;
  max: number;
}

export function totalsOf(values: readonly number[]): Totals {
  return {
    count: values.length,
    value: values.reduce((s, v) => s + v, 0),
    squares: values.reduce((s, v) => s + v * v, 0),
    min: Math.min(...values),
    max: Math.max(...values),
  };
}

export const isoMinutesAgo = (minutes: number, now = Date.now()) => new Date(now - minutes * 60_000).toISOString();
