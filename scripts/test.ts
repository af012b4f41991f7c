// `npm test`: the unit tests (test/unit/, pure) once; the integration tests
// (test/integration/, real stores) on the embedded stores, and again with Postgres on a
// server when one is reachable (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test),
// but for the suites in which Postgres plays no part (describeInEmbeddedRunOnly, pending there;
// describeInOneRun, run in the server run only when there is one);
// and the browser tests (test/browser/, headless Chromium) when a Chromium is installed.
// TEST_EMBEDDED_ONLY=1 runs only the unit tests and the embedded integration run.
// The browser code and dist/ are built first, so every run serves the current console and
// share page and starts the current service.
//
// The runs share nothing (each mocha process has its own temporary folder, embedded engines
// and server databases), so they go side by side: each integration run is cut into
// TEST_SHARDS mocha processes (default 5; the browser tests 2) of about equal time
// (test/file-times.json, the times of the last full run), and TEST_JOBS processes (default 3)
// run at once, the longest first.
// Each process's report is printed whole when it ends; the last lines are the slowest files
// (TEST_FILE_TIMES=N of them per run, default 10; all in test-artifacts/file-times.txt) and the
// sum of all runs.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { chromiumAvailable, chromiumPath } from '../test/helpers/browser.js';
import { buildWeb } from './buildWeb.js';

const serverUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const embeddedOnly = process.env.TEST_EMBEDDED_ONLY === '1';
const positiveInt = (name: string, fallback: number) => {
  const n = Number(process.env[name] ?? fallback);
  return Number.isInteger(n) && n >= 1 ? n : fallback;
};
const shardCount = positiveInt('TEST_SHARDS', 5);
/** The browser tests in two processes: one Chromium each, about 3 minutes of tests in all. */
const browserShardCount = Math.min(2, shardCount);
const jobCount = positiveInt('TEST_JOBS', 3);
const shownTimes = process.env.TEST_FILE_TIMES === 'all' ? Number.POSITIVE_INFINITY : positiveInt('TEST_FILE_TIMES', 10);
// Extra arguments go to mocha: test files (each run where it belongs) and options (e.g. --grep).
const extraArgs = process.argv.slice(2);
const isFile = (arg: string) => !arg.startsWith('-') && (arg.endsWith('.ts') || arg.includes('/'));
const options = extraArgs.filter((a) => !isFile(a));
const files = extraArgs.filter(isFile);
// mocha only warns about a path that matches nothing and runs the rest: a renamed or mistyped
// file would drop out unnoticed. Globs are left to mocha.
const missing = files.filter((f) => !/[*?[{]/.test(f) && !existsSync(f));
if (missing.length > 0) {
  process.stderr.write(`no such test file: ${missing.join(', ')}\n`);
  process.exit(1);
}
const isUnder = (dir: string) => (file: string) => file.replace(/^\.\//, '').startsWith(`test/${dir}/`);
const [isUnit, isBrowser] = [isUnder('unit'), isUnder('browser')];
/** Every *.test.ts under test/<dir>, sorted: the whole suite's files, to cut into shards. */
const testFilesUnder = (dir: string): string[] =>
  readdirSync(path.join('test', dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => path.join('test', dir, f).split(path.sep).join('/'))
    .sort();
const unitFiles = files.length === 0 ? ['test/unit/**/*.test.ts'] : files.filter(isUnit);
const browserFiles = files.length === 0 ? testFilesUnder('browser') : files.filter(isBrowser);
const integrationFiles = files.length === 0 ? testFilesUnder('integration') : files.filter((f) => !isUnit(f) && !isBrowser(f));

/** A mocha process of the run: its files, environment, and the run whose file times it adds to. */
interface Job {
  label: string;
  run: string;
  specs: string[];
  env: NodeJS.ProcessEnv;
  /** Its expected time (ms), from test/file-times.json: the longest start first. */
  weight: number;
}

interface RunResult {
  passed: number;
  failed: number;
  pending: number;
  exitCode: number;
  /** Mocha's report of the failures ("N failing" to the end), reprinted after all runs. */
  failures: string;
  /** The signal that ended mocha's process, if one did. */
  signal: NodeJS.Signals | null;
  /** The time of each file (ms), as test/helpers/specWithFileTimes.cjs measured it. */
  fileTimes: Record<string, number>;
}

const artifacts = path.resolve('test-artifacts');
const timesDir = path.join(artifacts, 'file-times');
/** The times of the last full run (file → ms, per run), which the shards are cut by; a file not in it counts as the median. */
const recordedTimesPath = 'test/file-times.json';
const recordedTimes: Record<string, Record<string, number>> = existsSync(recordedTimesPath) ? JSON.parse(readFileSync(recordedTimesPath, 'utf8')) : {};

function weightOf(run: string, file: string): number {
  const times = recordedTimes[run] ?? {};
  const known = times[file];
  if (known !== undefined) return known;
  const all = Object.values(times).sort((a, b) => a - b);
  return all[Math.floor(all.length / 2)] ?? statSync(file, { throwIfNoEntry: false })?.size ?? 1;
}

/** `count` groups of files of about equal expected time: each file, longest first, to the group with the least so far. */
function shards(run: string, specs: readonly string[], count: number): { specs: string[]; weight: number }[] {
  if (specs.some((s) => /[*?[{]/.test(s)) || specs.length < 2 || count < 2) {
    return [{ specs: [...specs], weight: specs.reduce((t, f) => t + weightOf(run, f), 0) }];
  }
  const groups = Array.from({ length: Math.min(count, specs.length) }, () => ({ specs: [] as string[], weight: 0 }));
  const byWeight = [...specs].sort((a, b) => weightOf(run, b) - weightOf(run, a));
  for (const file of byWeight) {
    const lightest = groups.reduce((min, g) => (g.weight < min.weight ? g : min));
    lightest.specs.push(file);
    lightest.weight += weightOf(run, file);
  }
  // In path order within a shard, as mocha would run them in one process. A group can stay
  // empty when files weigh nothing (a suite pending in this run): mocha refuses an empty list.
  for (const g of groups) g.specs.sort();
  return groups.filter((g) => g.specs.length > 0);
}

function jobsOf(run: string, label: string, specs: readonly string[], env: NodeJS.ProcessEnv, count: number): Job[] {
  const groups = shards(run, specs, count);
  return groups.map((g, i) => ({
    label: groups.length === 1 ? label : `${label}, shard ${i + 1} of ${groups.length}`,
    run,
    specs: g.specs,
    env,
    weight: g.weight,
  }));
}

/**
 * runMocha, and once more if V8 itself crashed (runtimeCrashed). Node 24.21's V8 was seen
 * once here to fail an internal check while releasing WebAssembly code (embedded Postgres is
 * WebAssembly): "Fatal error … Check failed: jit_page_->allocations_.erase(addr) == 1" in
 * ThreadIsolation::UnregisterWasmAllocation, ending the browser tests' process by SIGTRAP
 * after three tests had passed. A second crash fails the run as any other would.
 */
async function runMochaOnceMoreAfterRuntimeCrash(job: Job, id: number): Promise<RunResult> {
  const result = await runMocha(job, id);
  if (!runtimeCrashed(result)) return result;
  process.stdout.write(`\n(${job.label}: the process was ended by SIGTRAP, V8's own crash (its message is above): run once more)\n`);
  return runMocha({ ...job, label: `${job.label}, run again after a crash of V8` }, id);
}

/** Ended by SIGTRAP: how V8 ends a process on a failed internal check (V8_Fatal); JavaScript cannot end its own process so by mistake. */
const runtimeCrashed = (result: RunResult) => result.signal === 'SIGTRAP';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** One mocha process; its report (stdout and stderr) is printed whole when it ends, so that processes side by side do not mix lines. */
function runMocha(job: Job, id: number): Promise<RunResult> {
  const started = performance.now();
  const timesFile = path.join(timesDir, `${id}.json`);
  rmSync(timesFile, { force: true });
  process.stdout.write(`(started: ${job.label}, ${job.specs.length === 1 ? job.specs[0] : `${job.specs.length} files`})\n`);
  return new Promise((resolve) => {
    const args = ['node_modules/mocha/bin/mocha.js', '--reporter', './test/helpers/specWithFileTimes.cjs', ...options, ...job.specs];
    const child = spawn(process.execPath, args, { env: { ...job.env, TEST_FILE_TIMES_OUT: timesFile }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let shown = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      shown += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      shown += chunk.toString();
    });
    child.on('close', (code, signal) => {
      process.stdout.write(`\n=== ${job.label} (${seconds(performance.now() - started)}) ===\n${shown}`);
      const fileTimes: Record<string, number> = existsSync(timesFile) ? JSON.parse(readFileSync(timesFile, 'utf8')) : {};
      const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(output)?.[1] ?? 0);
      const failing = /^ *\d+ failing/m.exec(output);
      if (crashedAfterReport(signal, output)) {
        process.stdout.write(`\n(${job.label}: mocha reported every test, then its process was ended by ${signal} while exiting: counted by its report)\n`);
        resolve({ passed: count('passing'), failed: 0, pending: count('pending'), exitCode: 0, failures: '', signal, fileTimes });
        return;
      }
      const ended = code === null ? `was ended by ${signal}` : `exited with ${code}`;
      const failures = failing ? `=== ${job.label} ===\n${output.slice(failing.index)}` : code !== 0 ? `=== ${job.label} === ${ended}\n` : '';
      resolve({ passed: count('passing'), failed: count('failing'), pending: count('pending'), exitCode: code ?? 1, failures, signal, fileTimes });
    });
  });
}

/**
 * A mocha process that printed its final report with nothing failing, and then died of a
 * segmentation fault: embedded ClickHouse (chDB 26.7) can crash in its own teardown while the
 * process exits (its worker threads outlive the static destructors), seen once in a CI run
 * here after all 495 tests of a run had passed. Its tests ran and passed; anything else, a
 * crash before the report included, still fails the run.
 */
function crashedAfterReport(signal: NodeJS.Signals | null, output: string): boolean {
  return signal === 'SIGSEGV' && /^ *\d+ passing \(/m.test(output) && !/^ *\d+ failing/m.test(output);
}

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Compiles dist/ once for every process (scripts/lib/serviceProcess.ts then leaves it as it is). */
function compileDist(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tsc -p tsconfig.build.json exited with ${code}`))));
  });
}

/** Runs the jobs, `limit` at a time, the heaviest first; results in the jobs' order. */
async function runAll(jobs: readonly Job[], limit: number): Promise<RunResult[]> {
  const order = jobs.map((job, i) => ({ job, i })).sort((a, b) => b.job.weight - a.job.weight);
  const results: RunResult[] = new Array(jobs.length);
  const worker = async () => {
    for (let next = order.shift(); next !== undefined; next = order.shift()) {
      results[next.i] = await runMochaOnceMoreAfterRuntimeCrash(next.job, next.i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return results;
}

const suiteStarted = performance.now();
await buildWeb();
mkdirSync(timesDir, { recursive: true });
const env = { ...process.env, ALERTMON_DIST_COMPILED: process.cwd() };
if (integrationFiles.length > 0 || browserFiles.length > 0) await compileDist();

const jobs: Job[] = [];
const notes: string[] = [];
if (unitFiles.length > 0) jobs.push(...jobsOf('unit', 'unit tests', unitFiles, env, 1));
if (integrationFiles.length > 0) {
  const serverRun = !embeddedOnly && (await reachable(serverUrl));
  // Both runs know whether the server run happens: the suites of describeInOneRun go there if it does.
  const runsEnv = { ...env, ALERTMON_TEST_SERVER_RUN: serverRun ? '1' : '0' };
  jobs.push(...jobsOf('embedded', 'integration tests, embedded stores (chDB + PGlite)', integrationFiles, runsEnv, shardCount));
  if (embeddedOnly) {
    notes.push('TEST_EMBEDDED_ONLY=1: the server-mode run is skipped.');
  } else if (serverRun) {
    const shown = serverUrl.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
    const serverEnv = { ...runsEnv, ALERTMON_TEST_POSTGRES_URL: serverUrl };
    jobs.push(...jobsOf('server', `integration tests, Postgres server ${shown} (ClickHouse embedded)`, integrationFiles, serverEnv, shardCount));
  } else {
    notes.push('No Postgres server at TEST_DATABASE_URL; the server-mode run is skipped.');
  }
}
if (browserFiles.length > 0 && !embeddedOnly) {
  if (chromiumAvailable()) {
    jobs.push(...jobsOf('browser', `browser tests, Chromium at ${chromiumPath} (embedded stores)`, browserFiles, env, browserShardCount));
  } else {
    notes.push(`NO BROWSER TESTS RAN: no Chromium at ${chromiumPath}. Install one (apt-get install chromium) or set CHROMIUM_PATH; .ci/run installs it.`);
  }
}
for (const note of notes) process.stdout.write(`${note}\n`);
process.stdout.write(`${jobs.length} mocha processes, ${Math.min(jobCount, jobs.length)} at a time (TEST_JOBS, TEST_SHARDS)\n`);
const results = await runAll(jobs, jobCount);

// The time of each file, per run: the slowest here, all of them in test-artifacts/file-times.txt.
const byRun = new Map<string, Record<string, number>>();
for (const [i, job] of jobs.entries()) byRun.set(job.run, { ...byRun.get(job.run), ...results[i]?.fileTimes });
const report: string[] = [];
const shownReport: string[] = [];
for (const [run, times] of byRun) {
  const sorted = Object.entries(times).sort((a, b) => b[1] - a[1]);
  const total = sorted.reduce((t, [, ms]) => t + ms, 0);
  const heading = `${run}: ${sorted.length} files, ${seconds(total)} in all`;
  const lines = sorted.map(([file, ms]) => `${seconds(ms).padStart(9)}  ${file}`);
  report.push(heading, ...lines, '');
  shownReport.push(`${heading}; the slowest:`, ...lines.slice(0, shownTimes));
}
writeFileSync(path.join(artifacts, 'file-times.txt'), report.join('\n'));
writeFileSync(
  path.join(artifacts, 'file-times.json'),
  `${JSON.stringify(Object.fromEntries(byRun), (_, v) => (typeof v === 'number' ? Math.round(v) : v), 2)}\n`,
);
process.stdout.write(`\n=== time per file (all in test-artifacts/file-times.txt) ===\n${shownReport.join('\n')}\n`);

const total = results.reduce((t, r) => ({ passed: t.passed + r.passed, failed: t.failed + r.failed, pending: t.pending + r.pending }), {
  passed: 0,
  failed: 0,
  pending: 0,
});
const failedRun = results.some((r) => r.exitCode !== 0);
// Repeated last, where a log cut to its end still shows what failed.
if (failedRun) process.stdout.write(`\n=== failures, again ===\n${results.map((r) => r.failures).join('\n')}`);
process.stdout.write(`\n(${jobs.length} mocha processes in ${seconds(performance.now() - suiteStarted)})\n`);
process.stdout.write(`\ntests: ${total.passed} passed, ${total.failed} failed, ${total.pending} skipped\n`);
process.exit(failedRun || total.failed > 0 ? 1 : 0);
