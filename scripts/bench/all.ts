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

interface Headline {
  /** What the figure is, with its unit. */
  readonly name: string;
  /** Reads the figure from the benchmark's output (stdout and stderr). */
  readonly pattern: RegExp;
  readonly better: 'higher' | 'lower';
  readonly target: number | null;
}

interface QuickBench {
  readonly script: string;
  readonly args: readonly string[];
  readonly headlines: readonly Headline[];
}

const BENCHES: readonly QuickBench[] = [
  {
    script: 'delivery',
    args: ['--notifications', '2000'],
    headlines: [
      { name: 'deliveries/s, signed', pattern: /signing on:[\s\S]*?first → last request\s+\S+ s\s+= (\d+) deliveries\/s/, better: 'higher', target: 2000 },
      { name: 'worker CPU ms a delivery, signed', pattern: /signing on:[\s\S]*?worker CPU\s+([\d.]+) ms a delivery/, better: 'lower', target: null },
    ],
  },
  {
    script: 'evaluate',
    args: ['--policies', '10000', '--events', '1000', '--workspaces', '10'],
    headlines: [{ name: 'slowest cycle ms', pattern: /cycle 4[^\n]*\n[\s\S]*?(\d[\d,]*) ms/, better: 'lower', target: 2000 }],
  },
  {
    script: 'alert-latency',
    args: ['--samples', '5'],
    headlines: [{ name: 'median s (log → webhook)', pattern: /median ([\d.]+) s/, better: 'lower', target: 0.5 }],
  },
  {
    script: 'ingest',
    args: ['--records', '200000', '--open-rates', '20000'],
    headlines: [
      { name: 'records/s closed loop', pattern: /closed loop\s+\d+ clients: [\d,]+ records in [\d.]+ s = ([\d,]+) records\/s/, better: 'higher', target: null },
    ],
  },
  {
    script: 'insert-dedup',
    args: ['--inserts', '20'],
    headlines: [{ name: 'dedup cost per insert, median ms', pattern: /difference \(median\)\s+(-?[\d.]+) ms/, better: 'lower', target: null }],
  },
  {
    script: 'analytics',
    args: ['--logs', '200000', '--calls', '30', '--warmup', '5'],
    headlines: [{ name: 'worst p99 ms', pattern: /p99 ms[\s\S]*?\n\S[^\n]*?\s+[\d.]+\s+([\d.]+)/, better: 'lower', target: null }],
  },
  {
    script: 'backtest',
    args: ['--logs', '200000', '--calls', '5', '--warmup', '1'],
    headlines: [{ name: 'first backtest p99 ms', pattern: /p99 ms[\s\S]*?\n\S[^\n]*?\s+[\d.]+\s+([\d.]+)/, better: 'lower', target: null }],
  },
];

const RESULTS_FILE = path.join(projectRoot, 'docs', 'bench-results.json');
/** Worse than the recorded figure by more than this fraction: flagged. */
const REGRESSION = 0.3;

interface ResultsTable {
  /** Newest last: { commit, at, figures: { "<script>: <name>": number | null } }. */
  runs: { commit: string; at: string; load: number; figures: Record<string, number | null> }[];
}

function readTable(): ResultsTable {
  if (!existsSync(RESULTS_FILE)) return { runs: [] };
  return JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as ResultsTable;
}

function headCommit(): string {
  return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: projectRoot, encoding: 'utf8' }).trim();
}

function runScript(bench: QuickBench): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `scripts/bench/${bench.script}.ts`, ...bench.args], { cwd: projectRoot, env: process.env });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('close', () => resolve(output));
  });
}

const show = (n: number | null | undefined) => (n == null ? 'n/a' : n.toLocaleString('en-US', { maximumFractionDigits: 2 }));

async function main(): Promise<boolean> {
  const argv = process.argv.slice(2);
  if (!argv.includes('--quick')) throw new UsageError('usage: npm run bench -- --quick [--only name,name] [--no-record]');
  const onlyAt = argv.indexOf('--only');
  const only = onlyAt === -1 ? null : new Set((argv[onlyAt + 1] ?? '').split(','));
  const table = readTable();
  const commit = headCommit();
  const before = [...table.runs].reverse().find((r) => r.commit !== commit) ?? null;
  const figures: Record<string, number | null> = {};
  const lines = [`quick benchmarks on ${commit}; recorded before: ${before === null ? 'none' : before.commit}`, ''];
  let ok = true;
  for (const bench of BENCHES) {
    if (only !== null && !only.has(bench.script)) continue;
    const started = performance.now();
    process.stderr.write(`bench:${bench.script} ${bench.args.join(' ')}…\n`);
    const output = await runScript(bench);
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    for (const h of bench.headlines) {
      const key = `${bench.script}: ${h.name}`;
      const raw = h.pattern.exec(output)?.[1];
      const value = raw === undefined ? null : Number(raw.replaceAll(',', ''));
      figures[key] = value;
      const previous = before?.figures[key] ?? null;
      const missed = value === null || (h.target !== null && (h.better === 'higher' ? value < h.target : value > h.target));
      const regressed =
        value !== null && previous !== null && (h.better === 'higher' ? value < previous * (1 - REGRESSION) : value > previous * (1 + REGRESSION));
      ok &&= !missed && !regressed;
      const flag = value === null ? 'NO FIGURE' : regressed ? 'REGRESSED' : missed ? 'MISSED' : 'ok';
      lines.push(
        `${key.padEnd(52)} ${show(value).padStart(10)}   target ${h.target === null ? '—' : `${h.better === 'higher' ? '≥' : '≤'} ${show(h.target)}`}`.padEnd(
          84,
        ) + `before ${show(previous).padStart(10)}   ${flag}  (${seconds} s)`,
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  if (!argv.includes('--no-record')) {
    table.runs = table.runs.filter((r) => r.commit !== commit);
    table.runs.push({ commit, at: new Date().toISOString(), load: Number((await import('node:os')).loadavg()[0]!.toFixed(2)), figures });
    writeFileSync(RESULTS_FILE, `${JSON.stringify(table, null, 2)}\n`);
  }
  return ok;
}

await runBench('quick', main);
