// npm run bench:analytics -- [--logs 10000000] [--timezone Europe/Berlin] [--calls 300] [--warmup 30]
// Latency of window analytics through HTTP: loads --logs logs spread over the last 30 days
// for one event, plus noise (other events of the same workspace, and another workspace),
// straight into fresh embedded stores; then starts the service on them and calls each of
// the ten supported (period, previous) combinations --calls times, one call at a time.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { SUPPORTED_COMPARISONS, WINDOW_PERIODS } from '../src/analytics/windows.js';
import { loadBenchData, ROW_COUNTS_SQL, type BenchEvent, type LoadedEvent } from './bench/analyticsData.js';
import { installInterruptHandlers, runCleanup, temporaryDir } from './bench/cleanup.js';
import { percentile } from './bench/report.js';
import { querySql, startServiceProcess, type ServiceProcess } from './bench/serviceProcess.js';

const TARGET_P99_MS = 25;
const DAYS = 30;

const USAGE = `usage: npm run bench:analytics -- [options]
  --logs <n>         logs of the measured event over the last ${DAYS} days (default 10000000)
  --timezone <zone>  the measured event's timezone (default Europe/Berlin)
  --calls <n>        timed calls per combination (default 300)
  --warmup <n>       untimed calls per combination first (default 30)`;

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

interface Timing {
  readonly combination: string;
  readonly latenciesMs: number[];
  readonly currentCount: number;
  readonly previousCount: number;
}

type AnswerData = { current_count: number; previous_count: number } | null;

/** Latencies of `calls` GETs of url after `warmup` untimed ones, one at a time; and the last body. */
async function timeGets(url: string, token: string, options: Options): Promise<{ latenciesMs: number[]; lastBody: unknown }> {
  const headers = { authorization: `Bearer ${token}` };
  const latenciesMs: number[] = [];
  let lastBody: unknown = null;
  for (let i = 0; i < options.warmup + options.calls; i++) {
    const started = performance.now();
    const response = await fetch(url, { headers });
    const text = await response.text();
    const elapsed = performance.now() - started;
    if (response.status !== 200) throw new Error(`GET ${url}: ${response.status} ${text}`);
    if (i >= options.warmup) latenciesMs.push(elapsed);
    lastBody = JSON.parse(text);
  }
  return { latenciesMs, lastBody };
}

async function timeCombination(service: ServiceProcess, token: string, event: LoadedEvent, period: string, previous: string, options: Options): Promise<Timing> {
  const url = `${service.url}/v1.0/events/${event.eventId}/analytics?view=window&period=${period}&previous=${previous}`;
  const { latenciesMs, lastBody } = await timeGets(url, token, options);
  const data = (lastBody as { data: AnswerData }).data;
  return { combination: `${period}/${previous}`, latenciesMs, currentCount: data?.current_count ?? 0, previousCount: data?.previous_count ?? 0 };
}

async function run(options: Options): Promise<boolean> {
  const dataDir = temporaryDir('alertmon-bench-analytics-');
  const events = benchEvents(options);
  const total = events.reduce((n, e) => n + e.logs, 0);
  progress(`loading ${int(total)} logs over the last ${DAYS} days into fresh embedded stores…`);
  const data = await loadBenchData(dataDir, events, DAYS, Date.now(), progress);
  progress(`merges done ${data.mergeSeconds.toFixed(1)} s later; starting the service…`);

  const service = await startServiceProcess(dataDir, {});
  const measured = data.events[0]!;
  const counts = await querySql<{ table: string; event_id: string; n: string }>(service, ROW_COUNTS_SQL);
  const rowsOf = (table: string, eventId?: string) =>
    counts.filter((r) => r.table === table && (eventId === undefined || r.event_id === eventId)).reduce((n, r) => n + Number(r.n), 0);

  // Two other reads of the same event, timed the same way: how fast this machine answers
  // right now, so that the figures below can be read against it.
  const token = data.tokens.get(measured.workspaceId)!;
  const eventUrl = `${service.url}/v1.0/events/${measured.eventId}`;
  const baselines = [
    { name: 'GET event (no ClickHouse)', ...(await timeGets(eventUrl, token, options)) },
    { name: 'GET logs?period=day&limit=1', ...(await timeGets(`${eventUrl}/logs?period=day&limit=1`, token, options)) },
  ];
  const loadBefore = os.loadavg()[0]!;
  const timings: Timing[] = [];
  for (const period of WINDOW_PERIODS) {
    for (const previous of SUPPORTED_COMPARISONS[period]) {
      progress(`  ${period}/${previous}…`);
      timings.push(await timeCombination(service, token, measured, period, previous, options));
    }
  }
  const loadAfter = os.loadavg()[0]!;
  await service.stop();

  const tables = ['logs', 'rollup_minute', 'rollup_hour', 'rollup_day'];
  const lines = [
    '',
    '=== alertmon analytics benchmark ===',
    `measured event        ${int(measured.logs)} logs over the last ${DAYS} days, timezone ${measured.timezone}`,
    `noise                 ${events.slice(1).map((e) => `${e.workspaceId}/${e.event} ${int(e.logs)}`).join(', ')}`,
    `load                  ${int(total)} logs in ${data.loadSeconds.toFixed(1)} s (INSERT … SELECT FROM numbers() into logs; views fill the rollups), background merges done ${data.mergeSeconds.toFixed(1)} s later`,
    `stored rows           ${tables.map((t) => `${t} ${int(rowsOf(t, measured.eventId))}`).join(', ')} (measured event)`,
    `                      ${tables.map((t) => `${t} ${int(rowsOf(t))}`).join(', ')} (all events)`,
    `calls                 ${options.calls} timed per combination after ${options.warmup} untimed, one at a time, HTTP keep-alive`,
    `machine               ${os.cpus().length} cores, load average ${loadBefore.toFixed(1)} before the timed analytics calls, ${loadAfter.toFixed(1)} after`,
    ...baselines.map((b) => `${b.name.padEnd(30)}p50 ${percentile(b.latenciesMs, 50).toFixed(1)} ms, p99 ${percentile(b.latenciesMs, 99).toFixed(1)} ms (for comparison)`),
    '',
    `${'combination'.padEnd(22)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'max ms'.padStart(8)}${'current'.padStart(12)}${'previous'.padStart(12)}   p99 ≤ ${TARGET_P99_MS} ms`,
  ];
  let allMet = true;
  for (const t of timings) {
    const p99 = percentile(t.latenciesMs, 99);
    allMet &&= p99 <= TARGET_P99_MS;
    lines.push(
      `${t.combination.padEnd(22)}${percentile(t.latenciesMs, 50).toFixed(1).padStart(8)}${p99.toFixed(1).padStart(8)}` +
        `${Math.max(...t.latenciesMs).toFixed(1).padStart(8)}${int(t.currentCount).padStart(12)}${int(t.previousCount).padStart(12)}   ${p99 <= TARGET_P99_MS ? 'met' : 'NOT MET'}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return allMet;
}

async function main(): Promise<void> {
  const options = optionsOrExit();
  installInterruptHandlers();
  let passed = false;
  try {
    passed = await run(options);
  } catch (err) {
    process.stderr.write(`bench:analytics failed: ${err instanceof Error ? err.message : String(err)}\n`);
  } finally {
    await runCleanup();
  }
  process.exit(passed ? 0 : 1);
}

await main();
