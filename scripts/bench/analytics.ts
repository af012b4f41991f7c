// npm run bench:analytics -- [--logs 10000000] [--timezone Europe/Berlin] [--calls 300] [--warmup 30]
// Latency of window analytics through HTTP: loads --logs logs spread over the last 30 days
// for one event, plus noise (other events of the same workspace, and another workspace),
// straight into fresh embedded stores; then starts the service on them and calls each of
// the ten supported (period, previous) combinations, and two reference reads, in --calls
// rounds of one call each, one call at a time; and, before the service starts, the same
// comparisons called in-process on the stores, to show what the engines take of the time.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { SUPPORTED_COMPARISONS, WINDOW_PERIODS } from '../../src/analytics/windows.js';
import { windowComparison } from '../../src/analytics/windowComparison.js';
import { loadConfig } from '../../src/config.js';
import { openStores, storeOptions } from '../../src/stores/index.js';
import { loadBenchData, ROW_COUNTS_SQL, type BenchEvent, type LoadedEvent } from './lib/analyticsData.js';
import { temporaryDir } from './lib/cleanup.js';
import { runBench } from './lib/runner.js';
import { percentile } from './lib/report.js';
import { querySql, startBenchService } from './lib/benchService.js';

const TARGET_P99_MS = 25;
/** Every combination's p50 within this factor of 1h/previous_window's, in the same run. */
const TARGET_P50_RATIO = 1.2;
const BASE_COMBINATION = '1h/previous_window';
const DAYS = 30;

const USAGE = `usage: npm run bench:analytics -- [options]
  --logs <n>         logs of the measured event over the last ${DAYS} days (default 10000000)
  --timezone <zone>  the measured event's timezone (default Europe/Berlin)
  --calls <n>        timed rounds; each calls every read once (default 300)
  --warmup <n>       untimed rounds first (default 30)`;

interface Options {
  readonly logs: number;
  readonly timezone: string;
  readonly calls: number;
  readonly warmup: number;
}

function optionsOrExit(): Options {
  try {
    const { values } = parseArgs({
      options: { logs: { type: 'string' }, timezone: { type: 'string' }, calls: { type: 'string' }, warmup: { type: 'string' }, help: { type: 'boolean' } },
    });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    const positive = (name: string, value: string | undefined, fallback: number) => {
      const n = value === undefined ? fallback : Number(value);
      if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
      return n;
    };
    return {
      logs: positive('logs', values.logs, 10_000_000),
      timezone: values.timezone ?? 'Europe/Berlin',
      calls: positive('calls', values.calls, 300),
      warmup: positive('warmup', values.warmup, 30),
    };
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
}

const progress = (message: string) => process.stderr.write(`${message}\n`);
const int = (n: number) => Math.round(n).toLocaleString('en-US');

function benchEvents(options: Options): BenchEvent[] {
  return [
    { workspaceId: 'bench', event: 'checkout.latency_ms', timezone: options.timezone, logs: options.logs },
    { workspaceId: 'bench', event: 'noise.utc', timezone: 'UTC', logs: 1_000_000 },
    { workspaceId: 'bench', event: 'noise.newyork', timezone: 'America/New_York', logs: 1_000_000 },
    { workspaceId: 'bench', event: 'noise.kolkata', timezone: 'Asia/Kolkata', logs: 1_000_000 },
    { workspaceId: 'bench-other', event: 'checkout.latency_ms', timezone: options.timezone, logs: 2_000_000 },
  ];
}

/** One read that is timed: a window comparison, or a reference read of the same event. */
interface TimedRead {
  readonly name: string;
  readonly url: string;
  readonly isComparison: boolean;
  lastBody: unknown;
}

type AnswerData = { current_count: number; previous_count: number } | null;

/** A copy of items in random order (Fisher–Yates). */
function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/**
 * Calls `call` for every item once per round, in a new random order each round, one call at
 * a time: `warmup` untimed rounds, then `calls` timed ones; returns each item's latencies.
 * Interleaved so that every item meets the same moments of this (shared, noisy) machine; run
 * one after the other, an item timed during a slow minute would look slower than the others.
 */
async function timeInRounds<T>(items: readonly T[], options: Options, call: (item: T) => Promise<void>): Promise<Map<T, number[]>> {
  const latencies = new Map(items.map((item) => [item, [] as number[]]));
  for (let round = 0; round < options.warmup + options.calls; round++) {
    for (const item of shuffled(items)) {
      const started = performance.now();
      await call(item);
      if (round >= options.warmup) latencies.get(item)!.push(performance.now() - started);
    }
  }
  return latencies;
}

/** GETs a read's URL; keeps the answer's body. */
async function getRead(read: TimedRead, token: string): Promise<void> {
  const response = await fetch(read.url, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${read.url}: ${response.status} ${text}`);
  read.lastBody = JSON.parse(text);
}

/**
 * The same comparisons called in-process on the stores, without HTTP (Postgres lookup of the
 * event, window arithmetic, the ClickHouse query), in rounds: what the engines take of an
 * HTTP call's time. Latencies by combination name.
 */
async function timeInProcess(dataDir: string, event: LoadedEvent, options: Options): Promise<Map<string, number[]>> {
  const stores = await openStores(storeOptions(loadConfig({ DATA_DIR: dataDir })));
  try {
    const combinations = WINDOW_PERIODS.flatMap((period) => SUPPORTED_COMPARISONS[period].map((previous) => ({ period, previous })));
    const latencies = await timeInRounds(combinations, options, async ({ period, previous }) => {
      await windowComparison(stores, event.workspaceId, { eventId: event.eventId, period, previous, now: Date.now() });
    });
    return new Map([...latencies].map(([c, ms]) => [`${c.period}/${c.previous}`, ms]));
  } finally {
    await stores.close();
  }
}

async function run(options: Options): Promise<boolean> {
  const dataDir = temporaryDir('alertmon-bench-analytics-');
  const events = benchEvents(options);
  const total = events.reduce((n, e) => n + e.logs, 0);
  progress(`loading ${int(total)} logs over the last ${DAYS} days into fresh embedded stores…`);
  const data = await loadBenchData(dataDir, events, DAYS, Date.now(), progress);
  const measured = data.events[0]!;
  progress(`merges done ${data.mergeSeconds.toFixed(1)} s later; timing the comparisons in-process…`);
  const inProcess = await timeInProcess(dataDir, measured, options);

  progress('starting the service…');
  const service = await startBenchService(dataDir, {});
  const counts = await querySql<{ table: string; event_id: string; n: string }>(service, ROW_COUNTS_SQL);
  const rowsOf = (table: string, eventId?: string) =>
    counts.filter((r) => r.table === table && (eventId === undefined || r.event_id === eventId)).reduce((n, r) => n + Number(r.n), 0);

  // Two other reads of the same event, timed in the same rounds: how fast this machine
  // answers a request at the same moments, so that the figures below can be read against it.
  const token = data.tokens.get(measured.workspaceId)!;
  const eventUrl = `${service.url}/v1.0/events/${measured.eventId}`;
  const read = (name: string, url: string, isComparison: boolean): TimedRead => ({ name, url, isComparison, lastBody: null });
  const reads = [
    read('GET event (no ClickHouse)', eventUrl, false),
    read('GET logs?period=day&limit=1', `${eventUrl}/logs?period=day&limit=1`, false),
    ...WINDOW_PERIODS.flatMap((period) =>
      SUPPORTED_COMPARISONS[period].map((previous) =>
        read(`${period}/${previous}`, `${eventUrl}/analytics?view=window&period=${period}&previous=${previous}`, true),
      ),
    ),
  ];
  const loadBefore = os.loadavg()[0]!;
  progress(`timing ${reads.length} reads in ${options.warmup} + ${options.calls} rounds…`);
  const latencies = await timeInRounds(reads, options, (r) => getRead(r, token));
  const loadAfter = os.loadavg()[0]!;
  await service.stop();

  const tables = ['logs', 'rollup_minute', 'rollup_hour', 'rollup_day'];
  const lines = [
    '',
    '=== alertmon analytics benchmark ===',
    `measured event        ${int(measured.logs)} logs over the last ${DAYS} days, timezone ${measured.timezone}`,
    `noise                 ${events
      .slice(1)
      .map((e) => `${e.workspaceId}/${e.event} ${int(e.logs)}`)
      .join(', ')}`,
    `load                  ${int(total)} logs in ${data.loadSeconds.toFixed(1)} s (INSERT … SELECT FROM numbers() into logs; views fill the rollups), background merges done ${data.mergeSeconds.toFixed(1)} s later`,
    `stored rows           ${tables.map((t) => `${t} ${int(rowsOf(t, measured.eventId))}`).join(', ')} (measured event)`,
    `                      ${tables.map((t) => `${t} ${int(rowsOf(t))}`).join(', ')} (all events)`,
    `calls                 ${options.calls} timed rounds after ${options.warmup} untimed; each round calls every read below once, in random order, one at a time, HTTP keep-alive`,
    `machine               ${os.cpus().length} cores, load average ${loadBefore.toFixed(1)} before the timed calls, ${loadAfter.toFixed(1)} after`,
    '',
    `through HTTP; "in-process" times the same comparisons called on the stores without HTTP, in rounds of their own before the service started`,
    '',
    `${'read'.padEnd(30)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'max ms'.padStart(8)}${'current'.padStart(12)}${'previous'.padStart(12)}   p99 ≤ ${TARGET_P99_MS} ms   p50 ÷ ${BASE_COMBINATION} ≤ ${TARGET_P50_RATIO}   in-process p50 / p99 ms`,
  ];
  const baseP50 = percentile(latencies.get(reads.find((r) => r.name === BASE_COMBINATION)!)!, 50);
  let allMet = true;
  for (const r of reads) {
    const ms = latencies.get(r)!;
    const p99 = percentile(ms, 99);
    const figures = `${r.name.padEnd(30)}${percentile(ms, 50).toFixed(1).padStart(8)}${p99.toFixed(1).padStart(8)}${Math.max(...ms)
      .toFixed(1)
      .padStart(8)}`;
    if (!r.isComparison) {
      lines.push(`${figures}   (for comparison)`);
      continue;
    }
    const ratio = percentile(ms, 50) / baseP50;
    allMet &&= p99 <= TARGET_P99_MS && ratio <= TARGET_P50_RATIO;
    const data = (r.lastBody as { data: AnswerData }).data;
    const direct = inProcess.get(r.name)!;
    lines.push(
      `${figures}${int(data?.current_count ?? 0).padStart(12)}${int(data?.previous_count ?? 0).padStart(12)}   ${(p99 <= TARGET_P99_MS ? 'met' : 'NOT MET').padEnd(13)}` +
        `${`${ratio.toFixed(2)} ${ratio <= TARGET_P50_RATIO ? 'met' : 'NOT MET'}`.padEnd(34)}` +
        `${percentile(direct, 50).toFixed(1)} / ${percentile(direct, 99).toFixed(1)}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return allMet;
}

const options = optionsOrExit();
await runBench('analytics', () => run(options));
