// The load phases of bench:ingest beyond the closed loop (load.ts): an open loop at a fixed
// offered rate, a 256-client overload with a control-plane reader, and a probe of how long
// an acknowledged record takes to show in the rollups. One keep-alive HTTP client for all.
import http from 'node:http';
import type { RequestBatch } from './dataset.js';

export interface Answer {
  readonly status: number;
  readonly retryAfterS: number;
}

export function postLogs(agent: http.Agent, url: string, token: string, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL('/v1.0/logs', url),
      { agent, method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': body.length } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfterS: Number(res.headers['retry-after'] ?? 0) }));
        res.on('error', reject);
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error('no answer within 60 s')));
    req.on('error', reject);
    req.end(body);
  });
}

function getJson<T>(agent: http.Agent, url: string, path: string, token: string): Promise<{ status: number; body: T }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, url), { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') as T }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface OpenLoopResult {
  readonly offeredPerS: number;
  readonly sentRecords: number;
  readonly acceptedRecords: number;
  /** Answer time minus the scheduled send time, of requests answered 200. */
  readonly latenciesMs: number[];
  readonly statuses: ReadonlyMap<number, number>;
}

/** Sends the batches on a fixed schedule (offered rate), whatever the answers; nothing is retried. */
export async function openLoop(url: string, token: string, batches: readonly RequestBatch[], recordsPerS: number): Promise<OpenLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  const perBatchMs = (batches[0]!.records / recordsPerS) * 1000;
  const latenciesMs: number[] = [];
  const statuses = new Map<number, number>();
  let acceptedRecords = 0;
  const start = performance.now() + 50;
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < batches.length; i++) {
    const scheduled = start + i * perBatchMs;
    const wait = scheduled - performance.now();
    if (wait > 1) await sleep(wait);
    inFlight.push(
      postLogs(agent, url, token, batches[i]!.body).then(
        (answer) => {
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          if (answer.status === 200) {
            latenciesMs.push(performance.now() - scheduled);
            acceptedRecords += batches[i]!.records;
          }
        },
        () => {
          statuses.set(0, (statuses.get(0) ?? 0) + 1);
        },
      ),
    );
  }
  await Promise.all(inFlight);
  agent.destroy();
  return { offeredPerS: recordsPerS, sentRecords: batches.reduce((n, b) => n + b.records, 0), acceptedRecords, latenciesMs, statuses };
}

export interface OverloadResult {
  readonly clients: number;
  readonly acceptedRecords: number;
  readonly statuses: ReadonlyMap<number, number>;
  /** GET /v1.0/events latencies during the overload. */
  readonly controlPlaneMs: number[];
  readonly controlPlaneFailures: number;
}

/**
 * `clients` ingest clients send `body` as fast as they are answered, waiting Retry-After
 * after a 429 or 503 as the SDKs do, for `durationMs`; meanwhile a reader lists event
 * definitions every `readEveryMs`.
 */
export async function overload(
  url: string,
  ingestToken: string,
  readerToken: string,
  body: RequestBatch,
  clients: number,
  durationMs: number,
  readEveryMs: number,
): Promise<OverloadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const readerAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const statuses = new Map<number, number>();
  let acceptedRecords = 0;
  const until = performance.now() + durationMs;
  const senders = Array.from({ length: clients }, async () => {
    while (performance.now() < until) {
      const answer = await postLogs(agent, url, ingestToken, body.body).catch(() => ({ status: 0, retryAfterS: 1 }));
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status === 200) acceptedRecords += body.records;
      else await sleep(Math.max(1, answer.retryAfterS) * 1000);
    }
  });
  const controlPlaneMs: number[] = [];
  let controlPlaneFailures = 0;
  await sleep(Math.min(1000, durationMs / 4)); // let the overload build up
  while (performance.now() < until) {
    const started = performance.now();
    const res = await getJson(readerAgent, url, '/v1.0/events', readerToken).catch(() => null);
    controlPlaneMs.push(performance.now() - started);
    if (res?.status !== 200) controlPlaneFailures++;
    await sleep(readEveryMs);
  }
  await Promise.all(senders);
  agent.destroy();
  readerAgent.destroy();
  return { clients, acceptedRecords, statuses, controlPlaneMs, controlPlaneFailures };
}

/**
 * Until `stop` resolves: sends one record of a probe event, then reads its minute rollup until
 * the record shows; the lag is from the 200 to the first read that shows it. One at a time.
 */
export async function probeVisibility(url: string, token: string, stop: Promise<unknown>): Promise<{ lagsMs: number[]; acceptedRecords: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  let stopped = false;
  void stop.then(() => (stopped = true));
  const lagsMs: number[] = [];
  let eventId: string | null = null;
  let seen = 0;
  const total = async () => {
    if (eventId === null) {
      const events = await getJson<{ event_id: string; event: string }[]>(agent, url, '/v1.0/events?limit=100', token);
      eventId = events.body?.find((e) => e.event === 'bench.visibility_probe')?.event_id ?? null;
      if (eventId === null) return 0;
    }
    const buckets = await getJson<{ count: number }[]>(agent, url, `/v1.0/events/${eventId}/logs?period=minute`, token);
    return (buckets.body ?? []).reduce((n, b) => n + b.count, 0);
  };
  while (!stopped) {
    const body = Buffer.from(JSON.stringify([{ event: 'bench.visibility_probe', value: 1 }]));
    const answer = await postLogs(agent, url, token, body).catch(() => null);
    if (answer?.status !== 200) {
      await sleep(100);
      continue;
    }
    const acknowledged = performance.now();
    seen++;
    while ((await total()) < seen) await sleep(20);
    lagsMs.push(performance.now() - acknowledged);
    await sleep(100);
  }
  agent.destroy();
  return { lagsMs, acceptedRecords: seen };
}
