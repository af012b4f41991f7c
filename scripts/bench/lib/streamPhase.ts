// bench:ingest on the JetStream journal (JOURNAL_URL), beside the local journal in the same run:
// a writer process (ROLE=all: embedded ClickHouse, the stream's writer, the API) and one, then
// two, stateless ROLE=ingest processes, on the Postgres server (ingest processes share it) and
// NATS. For each: the closed loop's capacity (its clients split over the ingest processes),
// the time until the writer has it all in ClickHouse, an open loop at each offered rate
// (split likewise) with its p99, and the stored counts against what was acknowledged.
// On 2 cores a second ingest process shows correctness and overhead, not speed-up.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { temporaryDir } from './cleanup.js';
import type { RequestBatch } from './dataset.js';
import { runLoad, type LoadResult } from './load.js';
import { openLoop, type OpenLoopResult } from './phases.js';
import { countStored, issueWorkspaceToken, sleep, startBenchService, type BenchService } from './benchService.js';
import type { CountCheck } from './report.js';

export interface StreamBenchInputs {
  readonly natsUrl: string;
  /** A Postgres server where a database of the run's own is created (and dropped after). */
  readonly postgresUrl: string;
  readonly ingestEnv: Readonly<Record<string, string>>;
  readonly concurrency: number;
  readonly closedBatches: readonly RequestBatch[];
  readonly openBatches: readonly (readonly RequestBatch[])[];
  readonly openRates: readonly number[];
  readonly maxLoadMinutes: number;
}

export interface StreamVariant {
  readonly ingestProcesses: number;
  readonly closed: { acceptedRecords: number; wallMs: number; drainedMs: number; p99Ms: number };
  readonly open: { offeredPerS: number; acceptedRecords: number; sentRecords: number; p50Ms: number; p99Ms: number; failed: number }[];
  readonly counts: CountCheck;
}

const quantile = (values: readonly number[], q: number) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

/** Splits the batches round-robin into n shares. */
const shares = <T>(items: readonly T[], n: number): T[][] => Array.from({ length: n }, (_, k) => items.filter((_, i) => i % n === k));

/** Waits until the stream holds no message (a writer acknowledges a message only after its insert), read from NATS itself. */
async function drained(natsUrl: string, stream: string): Promise<void> {
  const { connect } = await import('@nats-io/transport-node');
  const { jetstreamManager } = await import('@nats-io/jetstream');
  const nc = await connect({ servers: natsUrl, timeout: 5_000 });
  try {
    const jsm = await jetstreamManager(nc);
    const deadline = Date.now() + 300_000;
    while ((await jsm.streams.info(stream)).state.messages !== 0) {
      if (Date.now() > deadline) throw new Error('the stream did not drain within 300 s');
      await sleep(100);
    }
  } finally {
    await nc.close();
  }
}

async function withDatabase<T>(serverUrl: string, fn: (url: string) => Promise<T>): Promise<T> {
  const name = `alertmon_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  try {
    return await fn(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
}

async function variant(inputs: StreamBenchInputs, ingestProcesses: number, progress: (m: string) => void): Promise<StreamVariant> {
  return withDatabase(inputs.postgresUrl, async (databaseUrl) => {
    const stream = `alertmon_bench_${randomBytes(5).toString('hex')}`;
    const shared = { ...inputs.ingestEnv, DATABASE_URL: databaseUrl, JOURNAL_URL: inputs.natsUrl, JOURNAL_STREAM: stream };
    const writer = await startBenchService(temporaryDir('alertmon-bench-stream-'), { ...shared, ROLE: 'all' });
    const ingest: BenchService[] = [];
    try {
      for (let i = 0; i < ingestProcesses; i++) ingest.push(await startBenchService(temporaryDir('alertmon-bench-ingest-'), { ...shared, ROLE: 'ingest' }));
      const token = await issueWorkspaceToken(writer, 'bench');
      const openToken = await issueWorkspaceToken(writer, 'bench-open');
      progress(`stream, ${ingestProcesses} ingest process(es): closed loop, ${inputs.concurrency} clients…`);
      const started = performance.now();
      const loads: LoadResult[] = await Promise.all(
        shares(inputs.closedBatches, ingestProcesses).map((batches, i) =>
          runLoad({
            url: ingest[i]!.url,
            token,
            batches,
            concurrency: Math.ceil(inputs.concurrency / ingestProcesses),
            maxDurationMs: inputs.maxLoadMinutes * 60_000,
            signal: new AbortController().signal,
          }),
        ),
      );
      const wallMs = Math.max(...loads.map((l) => l.wallMs));
      await drained(inputs.natsUrl, stream);
      const drainedMs = performance.now() - started;
      const open: StreamVariant['open'] = [];
      for (const [r, rate] of inputs.openRates.entries()) {
        progress(`stream, ${ingestProcesses} ingest process(es): open loop at ${rate} records/s…`);
        const results: OpenLoopResult[] = await Promise.all(
          shares(inputs.openBatches[r]!, ingestProcesses).map((batches, i) => openLoop(ingest[i]!.url, openToken, batches, rate / ingestProcesses)),
        );
        const latencies = results.flatMap((o) => o.latenciesMs);
        const failed = results.reduce((n, o) => n + [...o.statuses].filter(([s]) => s !== 200).reduce((m, [, c]) => m + c, 0), 0);
        open.push({
          offeredPerS: rate,
          acceptedRecords: results.reduce((n, o) => n + o.acceptedRecords, 0),
          sentRecords: results.reduce((n, o) => n + o.sentRecords, 0),
          p50Ms: quantile(latencies, 0.5),
          p99Ms: quantile(latencies, 0.99),
          failed,
        });
      }
      await drained(inputs.natsUrl, stream);
      const acknowledged = loads.reduce((n, l) => n + l.acceptedRecords, 0) + open.reduce((n, o) => n + o.acceptedRecords, 0);
      return {
        ingestProcesses,
        closed: {
          acceptedRecords: loads.reduce((n, l) => n + l.acceptedRecords, 0),
          wallMs,
          drainedMs,
          p99Ms: quantile(
            loads.flatMap((l) => l.requestLatenciesMs),
            0.99,
          ),
        },
        open,
        counts: await countStored(writer, ['bench', 'bench-open'], acknowledged),
      };
    } finally {
      await Promise.all([...ingest, writer].map((p) => p.stop()));
      await deleteStream(inputs.natsUrl, stream);
    }
  });
}

async function deleteStream(url: string, name: string): Promise<void> {
  const { connect } = await import('@nats-io/transport-node');
  const { jetstreamManager } = await import('@nats-io/jetstream');
  const nc = await connect({ servers: url, timeout: 2_000 }).catch(() => null);
  if (nc === null) return;
  await (await jetstreamManager(nc)).streams.delete(name).catch(() => {});
  await nc.close();
}

export async function measureStream(inputs: StreamBenchInputs, progress: (m: string) => void): Promise<StreamVariant[]> {
  return [await variant(inputs, 1, progress), await variant(inputs, 2, progress)];
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export function formatStreamReport(variants: readonly StreamVariant[]): string {
  const lines = [
    '',
    'JetStream journal (JOURNAL_URL; a ROLE=all writer on embedded ClickHouse, Postgres server; on 2 cores a second ingest process shows correctness and overhead, not speed-up):',
  ];
  for (const v of variants) {
    const { closed, counts } = v;
    lines.push(
      `  ${v.ingestProcesses} ingest process(es): closed loop ${fmt(closed.acceptedRecords)} records acknowledged at ${fmt((closed.acceptedRecords / closed.wallMs) * 1000)} records/s (request p99 ${closed.p99Ms.toFixed(1)} ms), all in ClickHouse at ${fmt((closed.acceptedRecords / closed.drainedMs) * 1000)} records/s`,
    );
    for (const o of v.open) {
      lines.push(
        `    open loop ${fmt(o.offeredPerS)} records/s: ${fmt(o.acceptedRecords)} of ${fmt(o.sentRecords)} acknowledged, p50 ${o.p50Ms.toFixed(1)} ms, p99 ${o.p99Ms.toFixed(1)} ms, ${o.failed} not 200`,
      );
    }
    const ok = [counts.logs, counts.uniqueLogIds, counts.minute, counts.hour, counts.day].every((n) => n === counts.acknowledged);
    lines.push(
      `    stored: logs ${fmt(counts.logs)}, unique log_ids ${fmt(counts.uniqueLogIds)}, minute ${fmt(counts.minute)}, hour ${fmt(counts.hour)}, day ${fmt(counts.day)} of ${fmt(counts.acknowledged)} acknowledged: ${ok ? 'OK' : 'MISMATCH'}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export const streamCountsOk = (variants: readonly StreamVariant[]) =>
  variants.every(({ counts: c }) => [c.logs, c.uniqueLogIds, c.minute, c.hour, c.day].every((n) => n === c.acknowledged));
