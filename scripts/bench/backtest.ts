// npm run bench:backtest -- [--logs 10000000] [--timezone Europe/Berlin] [--calls 20] [--warmup 3]
// Latency of a backtest over 30 days of minute buckets through HTTP: loads --logs logs spread
// over the last 30 days for one event, plus noise (other events of the same workspace, and
// another workspace), straight into fresh embedded stores (the analytics bench data); starts
// the service on them and calls POST /v1.0/policies/backtest for several rules, with a
// reference read of the same event's last 60 minute buckets, in rounds of one call each.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { loadBenchData, type BenchEvent } from './lib/analyticsData.js';
import { temporaryDir } from './lib/cleanup.js';
import { percentile } from './lib/report.js';
import { runBench, UsageError } from './lib/runner.js';
import { startBenchService } from './lib/benchService.js';

const TARGET_MS = 1000;
const DAYS = 30;

const USAGE = `usage: npm run bench:backtest -- [options]
  --logs <n>         logs of the measured event over the last ${DAYS} days (default 10000000)
  --timezone <zone>  the measured event's timezone (default Europe/Berlin)
  --calls <n>        timed rounds; each calls every request below once (default 20)
  --warmup <n>       untimed rounds first (default 3)`;

function options() {
  const { values } = parseArgs({ options: { logs: { type: 'string' }, timezone: { type: 'string' }, calls: { type: 'string' }, warmup: { type: 'string' } } });
  const positive = (name: string, value: string | undefined, fallback: number) => {
    const n = value === undefined ? fallback : Number(value);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive integer\n${USAGE}`);
    return n;
  };
  return {
    logs: positive('logs', values.logs, 10_000_000),
    timezone: values.timezone ?? 'Europe/Berlin',
    calls: positive('calls', values.calls, 20),
    warmup: positive('warmup', values.warmup, 3),
  };
}

const progress = (message: string) => process.stderr.write(`${message}\n`);
const int = (n: number) => Math.round(n).toLocaleString('en-US');

/** Rules that use every option; values are 100.00–199.99, about 230 logs per minute at the default size. */
const RULES: Readonly<Record<string, Record<string, unknown>>> = {
  'count gt (plain)': { aggregate: 'count', condition: 'gt', threshold: 240 },
  'p99_est gt, pending 3, recovery': { aggregate: 'p99_est', condition: 'gt', threshold: 199, recovery_threshold: 198, pending_buckets: 3 },
  'average vs previous_1d, min_count': { aggregate: 'average', condition: 'gt', threshold: 1, compare_to: 'previous_1d', min_count: 10 },
  'max vs previous_7d, no_data breach': { aggregate: 'max', condition: 'lt', threshold: -0.01, compare_to: 'previous_7d', no_data: 'breach' },
};

interface Request {
  readonly name: string;
  readonly send: () => Promise<Response>;
  last: { buckets_evaluated?: number; alerts?: unknown[] } | null;
}

async function run(): Promise<boolean> {
  const opts = options();
  const dataDir = temporaryDir('alertmon-bench-backtest-');
  const events: BenchEvent[] = [
    { workspaceId: 'bench', event: 'checkout.latency_ms', timezone: opts.timezone, logs: opts.logs },
    { workspaceId: 'bench', event: 'noise.utc', timezone: 'UTC', logs: 1_000_000 },
    { workspaceId: 'bench-other', event: 'checkout.latency_ms', timezone: opts.timezone, logs: 1_000_000 },
  ];
  const total = events.reduce((n, e) => n + e.logs, 0);
  progress(`loading ${int(total)} logs over the last ${DAYS} days into fresh embedded stores…`);
  const data = await loadBenchData(dataDir, events, DAYS, Date.now(), progress);
  const measured = data.events[0]!;
  const token = data.tokens.get(measured.workspaceId)!;
  progress('starting the service…');
  const service = await startBenchService(dataDir, {});

  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  // 30 days of minutes up to now; from is at most 30 days back, so it starts at the first whole minute after that.
  const range = () => {
    const now = Date.now();
    return { from: new Date(Math.ceil((now - DAYS * 86_400_000) / 60_000) * 60_000 + 60_000).toISOString(), to: new Date(now).toISOString() };
  };
  const requests: Request[] = [
    {
      name: 'GET logs?period=minute&limit=60 (reference)',
      send: () => fetch(`${service.url}/v1.0/events/${measured.eventId}/logs?period=minute&limit=60`, { headers }),
      last: null,
    },
    ...Object.entries(RULES).map(([name, rule]) => ({
      name,
      send: () =>
        fetch(`${service.url}/v1.0/policies/backtest`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ policy: { event_id: measured.eventId, title: name, period: 'minute', severity: 'info', ...rule }, ...range() }),
        }),
      last: null,
    })),
  ];

  const latencies = new Map(requests.map((r) => [r, [] as number[]]));
  const loadBefore = os.loadavg()[0]!;
  progress(`timing ${requests.length} requests in ${opts.warmup} + ${opts.calls} rounds…`);
  for (let round = 0; round < opts.warmup + opts.calls; round++) {
    for (const r of requests) {
      const started = performance.now();
      const response = await r.send();
      const text = await response.text();
      const ms = performance.now() - started;
      if (response.status !== 200) throw new Error(`${r.name}: ${response.status} ${text}`);
      r.last = JSON.parse(text);
      if (round >= opts.warmup) latencies.get(r)!.push(ms);
    }
  }
  const loadAfter = os.loadavg()[0]!;
  await service.stop();

  const lines = [
    '',
    '=== alertmon backtest benchmark ===',
    `measured event   ${int(measured.logs)} logs over the last ${DAYS} days, timezone ${measured.timezone}; noise ${int(total - measured.logs)} logs in 2 other events`,
    `range            the last ${DAYS} days of minute buckets, up to the moment of each call`,
    `calls            ${opts.calls} timed rounds after ${opts.warmup} untimed, each request once per round, one at a time, through HTTP`,
    `machine          ${os.cpus().length} cores, load average ${loadBefore.toFixed(1)} before the timed calls, ${loadAfter.toFixed(1)} after`,
    '',
    `${'request'.padEnd(46)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'max ms'.padStart(8)}${'buckets'.padStart(9)}${'alerts'.padStart(8)}   p99 ≤ ${TARGET_MS} ms`,
  ];
  let met = true;
  for (const r of requests) {
    const ms = latencies.get(r)!;
    const p99 = percentile(ms, 99);
    const isBacktest = r.last?.buckets_evaluated !== undefined;
    if (isBacktest) met &&= p99 <= TARGET_MS;
    lines.push(
      `${r.name.padEnd(46)}${percentile(ms, 50).toFixed(1).padStart(8)}${p99.toFixed(1).padStart(8)}${Math.max(...ms)
        .toFixed(1)
        .padStart(8)}${(isBacktest ? int(r.last!.buckets_evaluated!) : '').padStart(9)}${(isBacktest ? String(r.last!.alerts!.length) : '').padStart(8)}   ${
        isBacktest ? (p99 <= TARGET_MS ? 'met' : 'NOT MET') : '(for comparison)'
      }`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return met;
}

await runBench('backtest', run);
