// The real servers and tools of the Prometheus world that tests drive (Debian's packages:
// prometheus, prometheus-alertmanager with amtool, victoria-metrics with vmalert; .ci/run
// installs them when missing): finding a binary, a free port, and a child process that is
// waited for until it answers and stopped for good. Each test skips, saying why, where a
// binary is missing.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from './waitFor.js';

/** The first of `candidates` (or the path in env `variable`) that runs with --version, else null. */
export function binary(variable: string, ...candidates: string[]): string | null {
  const env = process.env[variable];
  for (const candidate of env === undefined ? candidates : [env]) {
    try {
      execFileSync(candidate, ['--version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // not installed, or not runnable
    }
  }
  return null;
}

/** What a test says when it skips for want of a binary. */
export const missingBinary = (what: string, debianPackage: string, variable: string) =>
  `    (skipped: no ${what} binary; install Debian's "${debianPackage}" package or set ${variable})`;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A folder of its own for a server's files, removed when it stops. */
export const scratchDir = (prefix: string) => mkdtemp(path.join(tmpdir(), `alertmon-${prefix}-`));

export class RunningServer {
  private output = '';
  private exited: Promise<void>;

  constructor(
    readonly name: string,
    readonly url: string,
    private readonly child: ChildProcess,
    private readonly dir: string,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => this.keep(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.keep(chunk));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  /** The last 20 kB of what the server printed, for a failing test's message. */
  get log(): string {
    return this.output;
  }

  private keep(chunk: Buffer): void {
    this.output = (this.output + chunk.toString()).slice(-20_000);
  }

  /** Resolves once GET `probePath` answers 200; fails with the server's log if it exits or never does. */
  async ready(probePath: string, timeoutMs = 60_000): Promise<this> {
    let gone = false;
    void this.exited.then(() => (gone = true));
    try {
      await waitFor(
        `${this.name} to answer ${probePath}`,
        async () => {
          if (gone) throw new Error(`${this.name} exited`);
          const ok = await fetch(this.url + probePath).then(
            (r) => r.ok,
            () => false,
          );
          return ok ? true : null;
        },
        timeoutMs,
      );
    } catch (err) {
      await this.stop();
      throw new Error(`${(err as Error).message}:\n${this.log}`);
    }
    return this;
  }

  /** SIGTERM, then SIGKILL if it has not exited within 5 s; its folder is removed. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
      await this.exited;
      clearTimeout(timer);
    }
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** Spawns `command` with `args` (its output kept for diagnostics); `dir` is its scratch folder. */
export function runServer(name: string, url: string, command: string, args: readonly string[], dir: string): RunningServer {
  return new RunningServer(name, url, spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir }), dir);
}
