// The load phases of bench:ingest beyond the closed loop (load.ts): an open loop at a fixed
// offered rate, a 256-client overload with a control-plane reader, and a probe of how long
// an acknowledged record takes to show in the rollups, through the closed loop's lean HTTP
// client (leanHttp.ts).
import type { RequestBatch } from './dataset.js';
import { LeanHttpClient } from './leanHttp.js';

interface Answer {
  readonly status: number;
  readonly retryAfterS: number;
}

async function postLogs(client: LeanHttpClient, token: string, body: Buffer): Promise<Answer> {
  const answer = await client.send(
    client.head('POST', '/v1.0/logs', { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body.length),
    body,
  );
  return { status: answer.status, retryAfterS: Number(answer.headers.get('retry-after') ?? 0) };
}

async function getJson<T>(client: LeanHttpClient, path: string, token: string): Promise<{ status: number; body: T }> {
  const answer = await client.send(client.head('GET', path, { authorization: `Bearer ${token}` }, 0));
  return { status: answer.status, body: JSON.parse(answer.body.toString() || 'null') as T };
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
  const client = new LeanHttpClient(url, 1024);
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
      postLogs(client, token, batches[i]!.body).then(
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
  client.destroy();
  return { offeredPerS: recordsPerS, sentRecords: batches.reduce((n, b) => n + b.records, 0), acceptedRecords, latenciesMs, statuses };
}

export interface OverloadResult {
  readonly clients: number;
  readonly acceptedRecords: number;
  readonly statuses: ReadonlyMap<number, number>;
  /** GET /v1.0/events latencies during the overload. */
  readonly controlPlaneMs: number[];
  readonly controlPlaneFailures: number;
  /** A second workspace's one-record batches during the overload (the reader's workspace): latencies, and how many got 200 at the first try. */
  readonly secondWorkspaceMs: number[];
  readonly secondWorkspaceAccepted: number;
}

/**
 * `clients` ingest clients send `body` as fast as they are answered, waiting Retry-After
 * after a 429 or 503 as the SDKs do, for `durationMs`; meanwhile a reader lists event
 * definitions every `readEveryMs`, and its workspace sends a one-record batch after each read
 * (never retried: each counts as a first try).
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
  const client = new LeanHttpClient(url, clients);
  const reader = new LeanHttpClient(url, 1);
  const statuses = new Map<number, number>();
  let acceptedRecords = 0;
  const until = performance.now() + durationMs;
  const senders = Array.from({ length: clients }, async () => {
    while (performance.now() < until) {
      const answer = await postLogs(client, ingestToken, body.body).catch(() => ({ status: 0, retryAfterS: 1 }));
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status === 200) acceptedRecords += body.records;
      else await sleep(Math.max(1, answer.retryAfterS) * 1000);
    }
  });
  const controlPlaneMs: number[] = [];
  let controlPlaneFailures = 0;
  const secondWorkspaceMs: number[] = [];
  let secondWorkspaceAccepted = 0;
  const secondBody = Buffer.from(JSON.stringify([{ event: 'bench.second_workspace', value: 1 }]));
  await sleep(Math.min(1000, durationMs / 4)); // let the overload build up
  while (performance.now() < until) {
    const started = performance.now();
    const res = await getJson(reader, '/v1.0/events', readerToken).catch(() => null);
    controlPlaneMs.push(performance.now() - started);
    if (res?.status !== 200) controlPlaneFailures++;
    await sleep(readEveryMs / 2);
    const sent = performance.now();
    const answer = await postLogs(reader, readerToken, secondBody).catch(() => ({ status: 0, retryAfterS: 0 }));
    secondWorkspaceMs.push(performance.now() - sent);
    if (answer.status === 200) secondWorkspaceAccepted++;
    await sleep(readEveryMs / 2);
  }
  await Promise.all(senders);
  client.destroy();
  reader.destroy();
  return {
    clients,
    // The second workspace's records are not among the counted workspaces' (ingest.ts counts those).
    acceptedRecords,
    statuses,
    controlPlaneMs,
    controlPlaneFailures,
    secondWorkspaceMs,
    secondWorkspaceAccepted,
  };
}

/**
 * Until `stop` resolves: sends one record of a probe event, then reads its minute rollup until
 * the record shows; the lag is from the 200 to the first read that shows it. One at a time.
 */
export async function probeVisibility(url: string, token: string, stop: Promise<unknown>): Promise<{ lagsMs: number[]; acceptedRecords: number }> {
  const client = new LeanHttpClient(url, 2);
  let stopped = false;
  void stop.then(() => (stopped = true));
  const lagsMs: number[] = [];
  let eventId: string | null = null;
  let seen = 0;
  const total = async () => {
    if (eventId === null) {
      const events = await getJson<{ event_id: string; event: string }[]>(client, '/v1.0/events?limit=100', token);
      eventId = events.body?.find((e) => e.event === 'bench.visibility_probe')?.event_id ?? null;
      if (eventId === null) return 0;
    }
    const buckets = await getJson<{ count: number }[]>(client, `/v1.0/events/${eventId}/logs?period=minute`, token);
    return (buckets.body ?? []).reduce((n, b) => n + b.count, 0);
  };
  while (!stopped) {
    const body = Buffer.from(JSON.stringify([{ event: 'bench.visibility_probe', value: 1 }]));
    const answer = await postLogs(client, token, body).catch(() => null);
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
  client.destroy();
  return { lagsMs, acceptedRecords: seen };
}
