// The one way a benchmark runs: `runBench(name, main)` prints where and when it runs (the
// load average first, since figures taken beside other work mislead), undoes what the run
// left behind however it ends (cleanup.ts), and sets the exit code: 0 when main returns
// true or nothing, 1 when it returns false (a target missed) or throws, 2 on a UsageError.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { projectRoot } from '../../../src/paths.js';
import { installInterruptHandlers, runCleanup } from './cleanup.js';

/** A bad command line: the message (with the usage) is printed, and the run exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The integer value of option `--name`, from `min` to `max`, or `fallback` when it is not given; a UsageError otherwise. */
export function integerOption(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`--${name} takes an integer from ${min} to ${max}`);
  return n;
}

function commit(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: projectRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd: projectRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return dirty.trim() === '' ? sha : `${sha} with uncommitted changes`;
  } catch {
    return 'unknown commit';
  }
}

/** The header every benchmark prints first (to stderr, with its progress). */
export function benchHeader(name: string): string {
  const [one, five] = os.loadavg().map((l) => l.toFixed(2));
  const busy = Number(one) >= 1 ? ' (busy: another process shares the machine, figures will be unreliable)' : '';
  return `bench:${name} on ${commit()}, node ${process.version}, ${os.cpus().length} cores, load average ${one} / ${five}${busy}`;
}

export async function runBench(name: string, main: () => Promise<unknown>): Promise<never> {
  installInterruptHandlers();
  let exitCode = 0;
  try {
    process.stderr.write(`${benchHeader(name)}\n`);
    const passed = await main();
    exitCode = passed === false ? 1 : 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n`);
      exitCode = 2;
    } else {
      process.stderr.write(`bench:${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      exitCode = 1;
    }
  } finally {
    await runCleanup();
  }
  process.exit(exitCode);
}
