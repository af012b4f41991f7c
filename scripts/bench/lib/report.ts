// The figures of a bench:ingest run, and the targets they are held to (issue 14).
import type { DirectInsertResult } from './directInsert.js';
import type { LoadResult } from './load.js';
import type { OpenLoopResult, OverloadResult } from './phases.js';

export interface ServiceFigures {
  readonly rssAtStartBytes: number | null;
  readonly peakRssBytes: number | null;
  /** VmHWM once the load is over and the journal drained, before the run's count checks. */
  readonly highWaterMarkBytes: number | null;
  /** VmHWM after the count checks (their uniqExact over every stored log_id is the bench's, not ingest's). */
  readonly highWaterMarkAfterChecksBytes: number | null;
  readonly clickhouseInserts: number | null;
  readonly clickhouseInsertSeconds: number | null;
  readonly ingestedRecords: number | null;
  readonly fsyncs: number | null;
  readonly fsyncSeconds: number | null;
}

/** What was stored against what was acknowledged, per workspace of the run. */
export interface CountCheck {
  readonly acknowledged: number;
  readonly logs: number;
  readonly uniqueLogIds: number;
  readonly minute: number;
  readonly hour: number;
  readonly day: number;
}

export interface RunReport {
  readonly ingestSettings: string;
  readonly recordsPerRequest: number;
  readonly closedLoop: {
    readonly clients: number;
    readonly load: LoadResult;
    /** CPU time from the loop's start until its records were in ClickHouse: the service's (null where unreadable), the clients'. */
    readonly cpu: { readonly serviceSeconds: number | null; readonly clientSeconds: number };
  };
  readonly openLoops: readonly OpenLoopResult[];
  readonly visibilityLagsMs: readonly number[];
  readonly overload: OverloadResult;
  readonly service: ServiceFigures;
  readonly counts: CountCheck;
  readonly direct: DirectInsertResult;
}

export const TARGETS = {
  ratioPercent: 50,
  recordsPerSecond: 60_000,
  openLoop20kP99Ms: 50,
  visibilityP99Ms: 2_000,
  controlPlaneP99Ms: 100,
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
const statusList = (statuses: ReadonlyMap<number, number>) => [...statuses].map(([s, n]) => `${s === 0 ? 'transport error' : s}×${int(n)}`).join(', ');

const perRecord = (seconds: number | null, records: number) => (seconds === null || records === 0 ? 'n/a' : `${((seconds * 1e6) / records).toFixed(2)} µs`);

function latencyLine(values: readonly number[]): string {
  return [50, 90, 99].map((p) => `p${p} ${ms(percentile(values, p))}`).join('  ') + `  max ${ms(values.length ? Math.max(...values) : NaN)}`;
}

export function formatReport(r: RunReport): string {
  const { load } = r.closedLoop;
  const { service, direct, counts, overload } = r;
  const serviceRate = load.acceptedRecords / (load.wallMs / 1000);
  const directRate = direct.rows / direct.insertSeconds;
  const ratioPercent = (serviceRate / directRate) * 100;
  const open20k = r.openLoops.find((o) => o.offeredPerS === 20_000);
  const open20kP99 = open20k ? percentile(open20k.latenciesMs, 99) : NaN;
  const visibilityP99 = percentile(r.visibilityLagsMs, 99);
  const controlP99 = percentile(overload.controlPlaneMs, 99);
  const peakRss = Math.max(service.peakRssBytes ?? 0, service.highWaterMarkBytes ?? 0) || null;
  const lost = Math.max(0, counts.acknowledged - counts.uniqueLogIds);
  const doubled = counts.logs - counts.uniqueLogIds;
  const rollupsExact = [counts.minute, counts.hour, counts.day].every((n) => n === counts.logs);
  const exact = lost === 0 && doubled === 0 && counts.logs === counts.acknowledged && rollupsExact;
  const openOk = r.openLoops.every((o) => o.acceptedRecords === o.sentRecords);

  const lines = [
    '',
    '=== alertmon ingest benchmark ===',
    `ingest settings           ${r.ingestSettings}`,
    `requests                  ${r.recordsPerRequest} records each, keep-alive, log_ids set (overload: none)`,
    '',
    `closed loop               ${r.closedLoop.clients} clients: ${int(load.acceptedRecords)} records in ${(load.wallMs / 1000).toFixed(2)} s = ${int(serviceRate)} records/s`,
    `  request latency (ms)    ${latencyLine(load.requestLatenciesMs)}`,
    `  429/503 (retried)       ${int(load.overloadedAnswers)}; other non-200 ${int([...load.otherStatuses.values()].reduce((a, b) => a + b, 0))}; transport errors ${int(load.transportErrors)}`,
    ...load.errorSamples.map((s) => `    e.g. ${s}`),
    `  CPU a record            service ${perRecord(r.closedLoop.cpu.serviceSeconds, load.acceptedRecords)} (ClickHouse included), load clients ${perRecord(r.closedLoop.cpu.clientSeconds, load.acceptedRecords)}`,
    `direct bulk insert        ${int(direct.rows)} rows in ${int(direct.inserts)} inserts: ${int(directRate)} rows/s (stored ${int(direct.storedRows)}), CPU ${perRecord(direct.insertCpuSeconds, direct.rows)} a row`,
    `service / direct          ${ratioPercent.toFixed(1)}%`,
    '',
    ...r.openLoops.flatMap((o) => [
      `open loop ${int(o.offeredPerS).padStart(6)} records/s  ${int(o.acceptedRecords)} of ${int(o.sentRecords)} accepted (${statusList(o.statuses)})`,
      `  latency from schedule   ${latencyLine(o.latenciesMs)}`,
    ]),
    `visibility lag (ms)       ${latencyLine(r.visibilityLagsMs)}   (${r.visibilityLagsMs.length} probes, 200 → seen in the minute rollup, during the open loops)`,
    '',
    `overload                  ${overload.clients} clients for the phase: ${int(overload.acceptedRecords)} records accepted (${statusList(overload.statuses)})`,
    `  GET /v1.0/events (ms)   ${latencyLine(overload.controlPlaneMs)}   (${overload.controlPlaneMs.length} reads, ${overload.controlPlaneFailures} failed)`,
    `  second workspace (ms)   ${latencyLine(overload.secondWorkspaceMs)}   (${overload.secondWorkspaceAccepted} of ${overload.secondWorkspaceMs.length} one-record batches 200 at the first try)`,
    '',
    `service peak RSS          ${mib(service.peakRssBytes)} sampled every 200 ms (${mib(service.rssAtStartBytes)} at start); VmHWM ${mib(service.highWaterMarkBytes)} (${mib(service.highWaterMarkAfterChecksBytes)} after the count checks)`,
    `ClickHouse inserts        ${int(service.clickhouseInserts)}, mean ${int((service.ingestedRecords ?? NaN) / (service.clickhouseInserts ?? NaN))} rows, mean ${ms(((service.clickhouseInsertSeconds ?? NaN) * 1000) / (service.clickhouseInserts ?? NaN))} ms`,
    `journal fsyncs            ${int(service.fsyncs)}, mean ${ms(((service.fsyncSeconds ?? NaN) * 1000) / (service.fsyncs ?? NaN))} ms`,
    `stored vs acknowledged    acknowledged ${int(counts.acknowledged)}; logs ${int(counts.logs)} (${int(counts.uniqueLogIds)} unique ids); minute ${int(counts.minute)}, hour ${int(counts.hour)}, day ${int(counts.day)}`,
    `lost / counted twice      ${int(lost)} / ${int(doubled)}${rollupsExact ? '' : ' (a rollup disagrees with logs)'}`,
    '',
    'targets',
    `  capacity ≥ ${TARGETS.ratioPercent}% of bulk     ${`${ratioPercent.toFixed(1)}%`.padEnd(12)} ${met(ratioPercent >= TARGETS.ratioPercent)}`,
    `  ≥ ${int(TARGETS.recordsPerSecond)} records/s     ${int(serviceRate).padEnd(12)} ${met(serviceRate >= TARGETS.recordsPerSecond)}`,
    `  open loop 20k p99 ≤ ${TARGETS.openLoop20kP99Ms} ms ${`${ms(open20kP99)} ms`.padEnd(12)} ${met(open20kP99 <= TARGETS.openLoop20kP99Ms)}`,
    `  visibility p99 ≤ 2 s     ${`${ms(visibilityP99)} ms`.padEnd(12)} ${met(visibilityP99 <= TARGETS.visibilityP99Ms)}`,
    `  control plane p99 ≤ ${TARGETS.controlPlaneP99Ms} ms ${`${ms(controlP99)} ms`.padEnd(12)} ${met(controlP99 <= TARGETS.controlPlaneP99Ms)}`,
    `  RSS ≤ 1.5 GiB            ${mib(peakRss).padEnd(12)} ${met(peakRss !== null && peakRss <= TARGETS.rssBytes)}`,
    `  all open-loop batches 200 ${openOk ? 'yes' : 'no'.padEnd(12)} ${met(openOk)}`,
    `  nothing lost or doubled  ${(exact ? 'exact' : 'MISMATCH').padEnd(12)} ${met(exact)}`,
  ];
  return lines.join('\n') + '\n';
}
