// The service under test, compiled and started as `npm start` runs it (serviceProcess.ts), in
// a child process of its own on the embedded stores, so that its CPU and memory are its own
// and can be measured apart from the clients.
import { randomBytes } from 'node:crypto';
import { startServiceProcess, type ServiceProcess } from '../../lib/serviceProcess.js';
import { onCleanup } from './cleanup.js';
import type { CountCheck } from './report.js';

export interface BenchService extends ServiceProcess {
  readonly adminToken: string;
}

// Variables that would take the service off the embedded stores or change what is measured.
const OVERRIDDEN = /^(CLICKHOUSE_|DATABASE_URL$|ROLE$|LOGS_PORT$|INGEST_)/;

/** BENCH_SERVICE_NODE_ARGS: Node options for the service beyond `npm start`'s, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it. */
function serviceNodeArgs(): string[] {
  return (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
}

/**
 * Starts the service with an admin token of its own; it is stopped when the benchmark ends,
 * however it ends. `root`: another checkout to run the service from (default this one).
 */
export async function startBenchService(dataDir: string, env: Readonly<Record<string, string>>, root?: string): Promise<BenchService> {
  const adminToken = `bench-admin-${randomBytes(16).toString('hex')}`;
  const service = await startServiceProcess({
    // The service logs only warnings and errors here; they are worth seeing next to the figures.
    env: { DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, LOG_LEVEL: 'warn', ...env },
    dropInherited: OVERRIDDEN,
    nodeArgs: serviceNodeArgs(),
    readyTimeoutMs: 120_000,
    echoPrefix: '[service] ',
    // Ctrl-C reaches only the benchmark, which then stops the service with one SIGTERM (a
    // second signal would make it exit without cleaning up).
    detached: true,
    ...(root === undefined ? {} : { root }),
  });
  onCleanup(async () => {
    await service.stop({ timeoutMs: 10_000 });
  });
  return { ...service, adminToken };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function adminPost<T>(service: BenchService, path: string, body: unknown, expectedStatus: number): Promise<T> {
  const response = await fetch(`${service.url}/v1.0/admin${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expectedStatus) throw new Error(`POST /v1.0/admin${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

export async function issueWorkspaceToken(service: BenchService, workspaceId: string): Promise<string> {
  return (await adminPost<{ token: string }>(service, '/tokens', { user_id: workspaceId }, 201)).token;
}

/** Runs a read-only query through the admin SQL API; the rows as JSON objects. */
export function querySql<T>(service: BenchService, query: string): Promise<T[]> {
  return adminPost<T[]>(service, '/sql', { query }, 200);
}

/** Runs a query that returns one row with one numeric column `n`. */
export async function queryNumber(service: BenchService, query: string): Promise<number> {
  const rows = await querySql<{ n: number | string | null }>(service, query);
  return Number(rows[0]?.n ?? NaN);
}

/** What the service stored for the workspaces, against the records it acknowledged: rows of logs, distinct log_ids, and records in each rollup. */
export async function countStored(service: BenchService, workspaces: readonly string[], acknowledged: number): Promise<CountCheck> {
  const where = `WHERE workspace_id IN (${workspaces.map((w) => `'${w}'`).join(', ')})`;
  const count = (query: string) => queryNumber(service, query);
  return {
    acknowledged,
    logs: await count(`SELECT count() AS n FROM logs ${where}`),
    // Records sent without a log_id get one from the service: every stored row has a unique one unless counted twice.
    uniqueLogIds: await count(`SELECT uniqExact(log_id) AS n FROM logs ${where}`),
    minute: await count(`SELECT sum(count) AS n FROM rollup_minute_v ${where}`),
    hour: await count(`SELECT sum(count) AS n FROM rollup_hour_v ${where}`),
    day: await count(`SELECT sum(count) AS n FROM rollup_day_v ${where}`),
  };
}

export async function scrapeMetrics(service: BenchService): Promise<string> {
  const response = await fetch(`${service.url}/metrics`);
  if (response.status !== 200) throw new Error(`GET /metrics: ${response.status}`);
  return response.text();
}

/** The value of an unlabelled sample in Prometheus text format, or null when absent. */
export function metricValue(text: string, name: string): number | null {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : null;
}
