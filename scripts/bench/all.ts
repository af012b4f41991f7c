// npm run bench -- --quick [--only delivery,evaluate] [--no-record]
// The guard against a silent regression: runs every benchmark of scripts/bench/ in a short
// form, one after another, and prints each headline figure beside its target and beside the
// figure recorded for the commit before (docs/bench-results.json, which it then updates with
// this commit's figures; --no-record leaves it alone). A figure that misses its target, or
// is more than 30 % worse than the one recorded, is flagged. Quick figures are smaller runs
// than the full benchmarks: compare them with each other, not with docs/performance.md.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/paths.js';
import { runBench, UsageError } from './lib/runner.js';
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';

interface Headline {
  /** What the figure is, with its unit. */
  readonly name: string;
  /** Reads the figure from the benchmark's output (stdout and stderr): a pattern's first group, or a function. */
  readonly read: RegExp | ((output: string) => number | null);
  readonly better: 'higher' | 'lower';
  readonly target: number | null;
}

interface QuickBench {
  readonly script: string;
  readonly args: readonly string[];
  readonly headlines: readonly Headline[];
  /** Servers the benchmark needs besides the embedded stores: it is skipped, saying so, when one does not answer. */
  readonly needs?: readonly { readonly name: string; readonly host: string; readonly port: number }[];
}

const num = (s: string) => Number(s.replaceAll(',', ''));
/** The largest first group of every match. */
const largest = (pattern: RegExp) => (output: string) => {
  const all = [...output.matchAll(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`))].map((m) => num(m[1]!));
  return all.length === 0 ? null : Math.max(...all);
};
/** The largest p99 column of a latency table (name, p50, p99, max …) under a header line containing "p99 ms", rows ending in met / NOT MET only. */
const worstP99 = (output: string) => {
  const rows = output.split('\n');
  const at = rows.findIndex((l) => /p50 ms\s+p99 ms/.test(l));
  if (at === -1) return null;
  const p99s: number[] = [];
  for (const row of rows.slice(at + 1)) {
    if (row.trim() === '') break;
    if (row.includes('(for comparison)')) continue;
    const m = /\s(\d+\.\d)\s+(\d+\.\d)\s+(\d+\.\d)/.exec(row);
    if (m) p99s.push(Number(m[2]));
  }
  return p99s.length === 0 ? null : Math.max(...p99s);
};

const BENCHES: readonly QuickBench[] = [
  {
    script: 'delivery',
    args: ['--notifications', '1000'],
    headlines: [
      { name: 'deliveries/s, signed', read: /^signing on:\n[\s\S]*?first → last request\s+\S+ s\s+= (\d+) deliveries\/s/m, better: 'higher', target: 2000 },
      { name: 'worker CPU ms a delivery, signed', read: /^signing on:\n[\s\S]*?worker CPU\s+([\d.]+) ms a delivery/m, better: 'lower', target: null },
    ],
  },
  {
    script: 'evaluate',
    args: ['--policies', '10000', '--events', '1000', '--workspaces', '10'],
    headlines: [
      { name: 'slowest cycle ms (10,000 policies)', read: largest(/^cycle \d [^\n]*?\): (\d+) ms for/m), better: 'lower', target: 2000 },
      { name: 'data-driven, one event, max ms', read: /data-driven evaluation of one event[^\n]*max ([\d.]+) ms/, better: 'lower', target: 50 },
    ],
  },
  {
    script: 'fleet',
    args: ['--agents', '10000', '--policies', '1000', '--groups', '100', '--rounds', '3'],
    headlines: [
      { name: 'one bucket of a fleet of 10,000 agents ms', read: /one bucket of a fleet policy[^\n]*median ([\d.]+) ms/, better: 'lower', target: 200 },
      {
        name: 'slowest cycle ms (1,000 fleet policies × 100 groups)',
        read: /fleet policies × \d+ groups: slowest cycle (\d+) ms/,
        better: 'lower',
        target: 2000,
      },
    ],
  },
  {
    script: 'fleet-reads',
    args: ['--agents', '10000', '--calls', '20', '--warmup', '3'],
    headlines: [
      { name: 'GET /v1.0/series 100 groups × 60 minutes p99 ms', read: /^series: 100 groups[^\n]*?\s[\d.]+\s+([\d.]+)\s/m, better: 'lower', target: 50 },
      {
        name: 'ranked comparison, 10,000 agents, worst p99 ms',
        read: largest(/^ranked [^\n]*?\d+ agents\s+[\d.]+\s+([\d.]+)\s/m),
        better: 'lower',
        target: 100,
      },
    ],
  },
  {
    script: 'alert-latency',
    args: ['--samples', '5'],
    headlines: [
      { name: 'median s (log → webhook)', read: /median ([\d.]+) s/, better: 'lower', target: 0.5 },
      { name: 'p99 s (log → webhook)', read: /p99 ([\d.]+) s/, better: 'lower', target: 1 },
    ],
  },
  {
    script: 'storm',
    args: ['--policies', '300'],
    headlines: [
      { name: 'batch 200 → last delivery s', read: /→ last delivery\s+([\d.]+) s/, better: 'lower', target: 6 },
      { name: 'deliveries/s', read: /= ([\d.]+) deliveries\/s/, better: 'higher', target: null },
      { name: 'missing', read: /missing\s+(\d+)/, better: 'lower', target: 0 },
      { name: 'GET /v1.0/alerts p99 ms', read: /GET \/v1\.0\/alerts[^\n]*p99 ([\d.]+) ms/, better: 'lower', target: 100 },
    ],
  },
  {
    script: 'ingest',
    args: ['--records', '100000', '--open-rates', '20000', '--open-seconds', '5', '--overload-seconds', '5', '--journals', 'local', '--dimensions', '3'],
    headlines: [
      { name: 'records/s closed loop', read: /closed loop\s+\d+ clients: [\d,]+ records in [\d.]+ s = ([\d,]+) records\/s/, better: 'higher', target: 60000 },
      { name: 'visibility lag p99 ms', read: /visibility p99 ≤ 2 s\s+([\d.,]+) ms/, better: 'lower', target: 2000 },
      { name: '3 dimensions × 1,000 series / none, rate ratio', read: /ratio \(declared \/ none[^)]*\): ([\d.]+)/, better: 'higher', target: 0.8 },
    ],
  },
  {
    script: 'ingest',
    args: ['--records', '50000', '--open-rates', '20000', '--open-seconds', '5', '--overload-seconds', '5', '--journals', 'stream'],
    needs: [
      { name: 'NATS', host: '127.0.0.1', port: 4222 },
      { name: 'Postgres server', host: '127.0.0.1', port: 5432 },
    ],
    headlines: [
      {
        name: 'stream journal, records/s closed loop (best)',
        read: largest(/closed loop [\d,]+ records acknowledged at ([\d,]+) records\/s/),
        better: 'higher',
        target: null,
      },
    ],
  },
  {
    script: 'otlp',
    args: ['--points', '40000', '--rounds', '3'],
    headlines: [{ name: 'OTLP / JSON ratio', read: /ratio \(OTLP \/ JSON, medians\): ([\d.]+)/, better: 'higher', target: 0.5 }],
  },
  {
    script: 'grouping',
    args: ['--alerts', '200', '--destinations', '10', '--window', '5'],
    headlines: [
      { name: 'worker start → last first alert s', read: /worker start → first alert\s+[\d.]+–([\d.]+) s/, better: 'lower', target: null },
      { name: 'worker start → last alert.group s', read: /worker start → alert\.group\s+[\d.]+–([\d.]+) s/, better: 'lower', target: null },
    ],
  },
  {
    script: 'alertmanager',
    args: ['--alerts', '2000', '--rounds', '3', '--interval', '5', '--latency', '50'],
    headlines: [
      { name: 'alertmanager re-post p99 ms', read: /re-post\s+p50 [\d.]+ ms {2}p99 ([\d.]+) ms/, better: 'lower', target: 200 },
      { name: 'alertmanager post → webhook p99 ms', read: /firing post → webhook\s+p50 [\d.]+ ms {2}p99 ([\d.]+) ms/, better: 'lower', target: 100 },
    ],
  },
  {
    script: 'escalation',
    args: ['--alerts', '20'],
    headlines: [{ name: 'step received − due, p99 ms', read: /received at sink − due:\s+p50 -?\d+ ms, p99 (-?\d+) ms/, better: 'lower', target: null }],
  },
  {
    script: 'shifts',
    args: ['--calls', '20'],
    headlines: [{ name: 'shifts of 90 days, 5 × 50 members, 1,000 overrides, p99 ms', read: worstP99, better: 'lower', target: 100 }],
  },
  {
    script: 'analyst',
    args: ['--reads', '20'],
    headlines: [{ name: 'rollup read p99 added by 2 analyst queries, ms', read: /added p99\s+(-?[\d.]+) ms/, better: 'lower', target: 100 }],
  },
  {
    script: 'insert-dedup',
    args: ['--inserts', '20'],
    headlines: [{ name: 'dedup cost per insert, median ms', read: /difference \(median\)\s+(-?[\d.]+) ms/, better: 'lower', target: null }],
  },
  {
    script: 'analytics',
    args: ['--logs', '200000', '--calls', '30', '--warmup', '5'],
    headlines: [{ name: 'worst p99 ms', read: worstP99, better: 'lower', target: 25 }],
  },
  {
    script: 'backtest',
    args: ['--logs', '200000', '--calls', '5', '--warmup', '1'],
    headlines: [{ name: 'worst backtest p99 ms', read: worstP99, better: 'lower', target: 1000 }],
  },
];

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 1_000 });
    const settle = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.once('connect', () => settle(true));
    socket.once('timeout', () => settle(false));
    socket.once('error', () => resolve(false));
  });
}

const RESULTS_FILE = path.join(projectRoot, 'docs', 'bench-results.json');
/** Worse than the recorded figure by more than this fraction: flagged. */
const REGRESSION = 0.3;

interface ResultsTable {
  /** Newest last: { commit, at (when recorded), load (1-minute load average at the start), figures: { "<script>: <name>": number | null } }. */
  runs: { commit: string; at: string; load: number; figures: Record<string, number | null> }[];
}

function readTable(): ResultsTable {
  if (!existsSync(RESULTS_FILE)) return { runs: [] };
  return JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as ResultsTable;
}

function headCommit(): string {
  return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: projectRoot, encoding: 'utf8' }).trim();
}

/** Runs one benchmark, its output passed through to stderr as it comes (the full output is the record), and collected. */
function runScript(bench: QuickBench): Promise<{ output: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `scripts/bench/${bench.script}.ts`, ...bench.args], { cwd: projectRoot, env: process.env });
    let output = '';
    const take = (c: Buffer) => {
      output += c.toString();
      process.stderr.write(c);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (code) => resolve({ output, code }));
  });
}

const show = (n: number | null | undefined) => (n == null ? 'n/a' : n.toLocaleString('en-US', { maximumFractionDigits: 2 }));

async function main(): Promise<boolean> {
  const argv = process.argv.slice(2);
  if (!argv.includes('--quick')) throw new UsageError('usage: npm run bench -- --quick [--only name,name] [--no-record] [--reparse saved-output.txt]');
  // --reparse: read the figures from a saved run's full output instead of running (after a pattern is fixed).
  const reparseAt = argv.indexOf('--reparse');
  const saved = reparseAt === -1 ? null : readFileSync(argv[reparseAt + 1] ?? '', 'utf8');
  const savedHeader = saved === null ? null : /bench:quick on (\w+)[^\n]*?load average ([\d.]+)/.exec(saved);
  if (saved !== null && savedHeader === null) throw new UsageError('--reparse: not the output of npm run bench -- --quick');
  const savedAt = new Map(
    (saved ?? '')
      .split('\n>>> bench:')
      .slice(1)
      .map((part) => [part.slice(0, part.indexOf('\n')), part] as const),
  );
  const onlyAt = argv.indexOf('--only');
  const only = onlyAt === -1 ? null : new Set((argv[onlyAt + 1] ?? '').split(','));
  const table = readTable();
  const commit = savedHeader?.[1] ?? headCommit();
  const load = savedHeader === null ? Number(os.loadavg()[0]!.toFixed(2)) : Number(savedHeader[2]);
  const before = [...table.runs].reverse().find((r) => r.commit !== commit) ?? null;
  const figures: Record<string, number | null> = {};
  const lines = [
    '',
    saved === null
      ? `quick benchmarks on ${commit}, load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' / ')} at the start; recorded before: ${before === null ? 'none' : `${before.commit} (${before.at}, load ${before.load})`}`
      : `quick benchmarks on ${commit}, reparsed from ${argv[reparseAt + 1]} (load average ${load} at its start); recorded before: ${before === null ? 'none' : `${before.commit} (${before.at}, load ${before.load})`}`,
    '',
  ];
  let ok = true;
  for (const bench of BENCHES) {
    if (only !== null && !only.has(bench.script)) continue;
    const missing: string[] = [];
    for (const server of bench.needs ?? []) if (!(await reachable(server.host, server.port))) missing.push(`${server.name} at ${server.host}:${server.port}`);
    if (missing.length > 0) {
      lines.push(`${bench.script} ${bench.args.join(' ')}: SKIPPED, ${missing.join(' and ')} did not answer`);
      for (const h of bench.headlines) figures[`${bench.script}: ${h.name}`] = null;
      continue;
    }
    const started = performance.now();
    const title = `${bench.script} ${bench.args.join(' ')}`;
    if (saved === null) process.stderr.write(`\n>>> bench:${title}\n`);
    // Reparsed: the saved run of these options, else the only saved run of this benchmark (its options changed since).
    const savedRun =
      savedAt.get(title) ??
      ((runs) => (runs.length === 1 ? runs[0] : undefined))([...savedAt].filter(([t]) => t.split(' ')[0] === bench.script).map(([, o]) => o));
    const { output, code } = saved === null ? await runScript(bench) : { output: savedRun ?? '', code: savedRun === undefined ? null : 0 };
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    if (code !== 0) lines.push(`bench:${bench.script} exited with ${code} (${code === 1 ? 'a target missed or an error: see its output above' : 'error'})`);
    for (const h of bench.headlines) {
      const key = `${bench.script}: ${h.name}`;
      const value = typeof h.read === 'function' ? h.read(output) : ((raw) => (raw === undefined ? null : num(raw)))(h.read.exec(output)?.[1]);
      figures[key] = value !== null && Number.isFinite(value) ? value : null;
      const previous = before?.figures[key] ?? null;
      const missed = value === null || (h.target !== null && (h.better === 'higher' ? value < h.target : value > h.target));
      const regressed =
        value !== null && previous !== null && (h.better === 'higher' ? value < previous * (1 - REGRESSION) : value > previous * (1 + REGRESSION));
      ok &&= !missed && !regressed;
      const flag = value === null ? 'NO FIGURE' : regressed ? 'REGRESSED' : missed ? 'MISSED' : 'ok';
      lines.push(
        `${key.padEnd(56)} ${show(value).padStart(10)}   target ${h.target === null ? '—' : `${h.better === 'higher' ? '≥' : '≤'} ${show(h.target)}`}`.padEnd(
          90,
        ) + `before ${show(previous).padStart(10)}   ${flag}  (${seconds} s)`,
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  if (!argv.includes('--no-record')) {
    table.runs = table.runs.filter((r) => r.commit !== commit);
    table.runs.push({ commit, at: new Date().toISOString(), load, figures });
    writeFileSync(RESULTS_FILE, `${JSON.stringify(table, null, 2)}\n`);
  }
  return ok;
}

await runBench('quick', main);
