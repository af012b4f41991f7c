// `npm test`: the unit tests (test/unit/, pure) once; the integration tests
// (test/integration/, real stores) on the embedded stores, then again with Postgres on a
// server when one is reachable (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test),
// but for the suites in which Postgres plays no part (describeInEmbeddedRunOnly, pending there);
// then the browser tests (test/browser/, headless Chromium) when a Chromium is installed.
// TEST_EMBEDDED_ONLY=1 runs only the unit tests and the embedded integration run (CI's run on
// the older Node it still supports, .ci/run). The browser code is built first, so every run serves the current console and share page.
// Each run prints mocha's report; the last line sums all runs.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { chromiumAvailable, chromiumPath } from '../test/helpers/browser.js';
import { buildWeb } from './buildWeb.js';

const serverUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const embeddedOnly = process.env.TEST_EMBEDDED_ONLY === '1';
// Extra arguments go to mocha: test files (each run where it belongs) and options (e.g. --grep).
const extraArgs = process.argv.slice(2);
const isFile = (arg: string) => !arg.startsWith('-') && (arg.endsWith('.ts') || arg.includes('/'));
const options = extraArgs.filter((a) => !isFile(a));
const files = extraArgs.filter(isFile);
// mocha only warns about a path that matches nothing and runs the rest: a renamed or mistyped
// file (in .ci/run's Node 20 list, say) would drop out unnoticed. Globs are left to mocha.
const missing = files.filter((f) => !/[*?[{]/.test(f) && !existsSync(f));
if (missing.length > 0) {
  process.stderr.write(`no such test file: ${missing.join(', ')}\n`);
  process.exit(1);
}
const isUnder = (dir: string) => (file: string) => file.replace(/^\.\//, '').startsWith(`test/${dir}/`);
const [isUnit, isBrowser] = [isUnder('unit'), isUnder('browser')];
const unitFiles = files.length === 0 ? ['test/unit/**/*.test.ts'] : files.filter(isUnit);
const browserFiles = files.length === 0 ? ['test/browser/**/*.test.ts'] : files.filter(isBrowser);
const integrationFiles = files.length === 0 ? ['test/integration/**/*.test.ts'] : files.filter((f) => !isUnit(f) && !isBrowser(f));

interface RunResult {
  passed: number;
  failed: number;
  pending: number;
  exitCode: number;
  /** Mocha's report of the failures ("N failing" to the end), reprinted after all runs. */
  failures: string;
  /** The signal that ended mocha's process, if one did. */
  signal: NodeJS.Signals | null;
}

/**
 * runMocha, and once more if V8 itself crashed (runtimeCrashed). Node 24.21's V8 was seen
 * once here to fail an internal check while releasing WebAssembly code (embedded Postgres is
 * WebAssembly): "Fatal error … Check failed: jit_page_->allocations_.erase(addr) == 1" in
 * ThreadIsolation::UnregisterWasmAllocation, ending the browser tests' process by SIGTRAP
 * after three tests had passed. A second crash fails the run as any other would.
 */
async function runMochaOnceMoreAfterRuntimeCrash(label: string, specs: readonly string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  const result = await runMocha(label, specs, env);
  if (!runtimeCrashed(result)) return result;
  process.stdout.write(`\n(${label}: the process was ended by SIGTRAP, V8's own crash (its message is above): run once more)\n`);
  return runMocha(`${label}, run again after a crash of V8`, specs, env);
}

/** Ended by SIGTRAP: how V8 ends a process on a failed internal check (V8_Fatal); JavaScript cannot end its own process so by mistake. */
const runtimeCrashed = (result: RunResult) => result.signal === 'SIGTRAP';

function runMocha(label: string, specs: readonly string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  process.stdout.write(`\n=== ${label} ===\n`);
  return new Promise((resolve) => {
    const args = ['node_modules/mocha/bin/mocha.js', ...options, ...specs];
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      process.stdout.write(chunk);
    });
    child.on('close', (code, signal) => {
      const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(output)?.[1] ?? 0);
      const failing = /^ *\d+ failing/m.exec(output);
      if (crashedAfterReport(signal, output)) {
        process.stdout.write(`\n(${label}: mocha reported every test, then its process was ended by ${signal} while exiting: counted by its report)\n`);
        resolve({ passed: count('passing'), failed: 0, pending: count('pending'), exitCode: 0, failures: '', signal });
        return;
      }
      const ended = code === null ? `was ended by ${signal}` : `exited with ${code}`;
      const failures = failing ? `=== ${label} ===\n${output.slice(failing.index)}` : code !== 0 ? `=== ${label} === ${ended}\n` : '';
      resolve({ passed: count('passing'), failed: count('failing'), pending: count('pending'), exitCode: code ?? 1, failures, signal });
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

await buildWeb();

const results: RunResult[] = [];
if (unitFiles.length > 0) results.push(await runMochaOnceMoreAfterRuntimeCrash('unit tests', unitFiles, { ...process.env }));
if (integrationFiles.length > 0) {
  results.push(await runMochaOnceMoreAfterRuntimeCrash('integration tests, embedded stores (chDB + PGlite)', integrationFiles, { ...process.env }));
  if (embeddedOnly) {
    process.stdout.write(`\nTEST_EMBEDDED_ONLY=1: the server-mode run is skipped.\n`);
  } else if (await reachable(serverUrl)) {
    const shown = serverUrl.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
    const env = { ...process.env, ALERTMON_TEST_POSTGRES_URL: serverUrl };
    results.push(await runMochaOnceMoreAfterRuntimeCrash(`integration tests, Postgres server ${shown} (ClickHouse embedded)`, integrationFiles, env));
  } else {
    process.stdout.write(`\nNo Postgres server at TEST_DATABASE_URL; the server-mode run is skipped.\n`);
  }
}
if (browserFiles.length > 0 && !embeddedOnly) {
  if (chromiumAvailable()) {
    results.push(await runMochaOnceMoreAfterRuntimeCrash(`browser tests, Chromium at ${chromiumPath} (embedded stores)`, browserFiles, { ...process.env }));
  } else {
    process.stdout.write(
      `\nNO BROWSER TESTS RAN: no Chromium at ${chromiumPath}. Install one (apt-get install chromium) or set CHROMIUM_PATH; .ci/run installs it.\n`,
    );
  }
}

const total = results.reduce((t, r) => ({ passed: t.passed + r.passed, failed: t.failed + r.failed, pending: t.pending + r.pending }), {
  passed: 0,
  failed: 0,
  pending: 0,
});
const failedRun = results.some((r) => r.exitCode !== 0);
// Repeated last, where a log cut to its end still shows what failed.
if (failedRun) process.stdout.write(`\n=== failures, again ===\n${results.map((r) => r.failures).join('\n')}`);
process.stdout.write(`\ntests: ${total.passed} passed, ${total.failed} failed, ${total.pending} skipped\n`);
process.exit(failedRun || total.failed > 0 ? 1 : 0);
