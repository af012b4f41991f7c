// The figures of a run, and the targets they are held to.
import type { DirectInsertResult } from './directInsert.js';
import type { LoadResult } from './load.js';

export interface ServiceFigures {
  /** VmRSS when the load began: what the idle service holds. */
  readonly rssAtStartBytes: number | null;
  readonly peakRssBytes: number | null;
  readonly highWaterMarkBytes: number | null;
  readonly clickhouseInserts: number | null;
  /** Total time spent in those inserts, in seconds. */
  readonly clickhouseInsertSeconds: number | null;
  readonly ingestedRecords: number | null;
}

export interface CountCheck {
  readonly expected: number;
  readonly logs: number;
  readonly rollupMinute: number;
  readonly passed: boolean;
}

export interface RunReport {
  readonly ingestSettings: string;
  readonly concurrency: number;
  readonly recordsPerRequest: number;
  readonly recordsGenerated: number;
  readonly requestsGenerated: number;
  readonly load: LoadResult;
  readonly service: ServiceFigures;
  readonly check: CountCheck;
  readonly direct: DirectInsertResult;
}

export const TARGETS = {
  recordsPerSecond: 60_000,
  p99Ms: 300,
  ratioPercent: 50,
  rssBytes: 1.5 * 1024 ** 3,
} as const;

/** Nearest-rank percentile of unsorted values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const int = (n: number | null) => (n === null || !Number.isFinite(n) ? 'n/a' : Math.round(n).toLocaleString('en-US'));
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const mib = (bytes: number | null) => (bytes === null ? 'n/a' : `${int(bytes / 1024 ** 2)} MiB`);
const met = (ok: boolean) => (ok ? 'met' : 'NOT MET');

function latencyLine(values: readonly number[]): string {
  return [50, 90, 99].map((p) => `p${p} ${ms(percentile(values, p))}`).join('  ') + `  max ${ms(Math.max(...values))}`;
}

export function formatReport(r: RunReport): string {
  const { load, service, direct, check } = r;
  const loadSeconds = load.wallMs / 1000;
  const serviceRate = load.acceptedRecords / loadSeconds;
  const directRate = direct.rows / direct.insertSeconds;
  const ratioPercent = (serviceRate / directRate) * 100;
  const p99 = percentile(load.requestLatenciesMs, 99);
  const other5xx = [...load.otherStatuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
  const otherNon200 = [...load.otherStatuses.values()].reduce((sum, n) => sum + n, 0);
  const peakRss = Math.max(service.peakRssBytes ?? 0, service.highWaterMarkBytes ?? 0) || null;
  const rowsPerInsert = service.clickhouseInserts ? (service.ingestedRecords ?? NaN) / service.clickhouseInserts : NaN;
  const msPerInsert = service.clickhouseInserts ? ((service.clickhouseInsertSeconds ?? NaN) * 1000) / service.clickhouseInserts : NaN;
  const statuses = [...load.otherStatuses].map(([status, n]) => `${status}×${n}`).join(', ');

  const lines = [
    '',
    '=== alertmon ingest benchmark ===',
    `ingest settings           ${r.ingestSettings}`,
    `clients                   ${r.concurrency} concurrent requests, ${r.recordsPerRequest} records per request, keep-alive`,
    `records sent              ${int(r.recordsGenerated)} in ${int(r.requestsGenerated)} requests (accepted: ${int(load.acceptedRecords)} in ${int(load.acceptedRequests)})`,
    `load wall time            ${loadSeconds.toFixed(2)} s`,
    `records/s sustained       ${int(serviceRate)}`,
    `request latency (ms)      ${latencyLine(load.requestLatenciesMs)}   (requests answered 200)`,
    `batch latency (ms)        ${latencyLine(load.batchLatenciesMs)}   (503 retries included)`,
    `503 answers (retried)     ${int(load.overloadedAnswers)}`,
    `other non-200 answers     ${int(otherNon200)}${statuses ? ` (${statuses})` : ''}`,
    `5xx other than 503: ${int(other5xx)}`,
    `transport errors          ${int(load.transportErrors)}`,
    ...load.errorSamples.map((s) => `  e.g. ${s}`),
    `service peak RSS          ${mib(service.peakRssBytes)} sampled every 200 ms (${mib(service.rssAtStartBytes)} when the load began); VmHWM ${mib(service.highWaterMarkBytes)}`,
    `ClickHouse inserts        ${int(service.clickhouseInserts)} (alertmon_clickhouse_insert_seconds_count)`,
    `ingested records          ${int(service.ingestedRecords)} (alertmon_ingested_records_total)`,
    `mean rows per insert      ${int(rowsPerInsert)}`,
    `mean insert time          ${ms(msPerInsert)} ms (busy ${ms(((service.clickhouseInsertSeconds ?? NaN) / loadSeconds) * 100)}% of the load wall time)`,
    `stored: logs count()      ${int(check.logs)}, rollup_minute sum(count) ${int(check.rollupMinute)}, expected ${int(check.expected)} → ${check.passed ? 'PASS' : 'FAIL'}`,
    `direct bulk insert        ${int(direct.rows)} rows in ${int(direct.inserts)} inserts: ${direct.insertSeconds.toFixed(2)} s, ${int(directRate)} rows/s (stored ${int(direct.storedRows)})`,
    `service / direct          ${ratioPercent.toFixed(1)}%`,
    '',
    'targets',
    `  ≥ ${int(TARGETS.recordsPerSecond)} records/s       ${int(serviceRate).padEnd(12)} ${met(serviceRate >= TARGETS.recordsPerSecond)}`,
    `  p99 ≤ ${TARGETS.p99Ms} ms              ${`${ms(p99)} ms`.padEnd(12)} ${met(p99 <= TARGETS.p99Ms)}`,
    `  service/direct ≥ ${TARGETS.ratioPercent}%      ${`${ratioPercent.toFixed(1)}%`.padEnd(12)} ${met(ratioPercent >= TARGETS.ratioPercent)}`,
    `  RSS ≤ 1.5 GiB             ${mib(peakRss).padEnd(12)} ${met(peakRss !== null && peakRss <= TARGETS.rssBytes)}`,
    `  no 5xx other than 503     ${int(other5xx).padEnd(12)} ${met(other5xx === 0)}`,
    `  count check               ${(check.passed ? 'PASS' : 'FAIL').padEnd(12)} ${met(check.passed)}`,
  ];
  return lines.join('\n') + '\n';
}
