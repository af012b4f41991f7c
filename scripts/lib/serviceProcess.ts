// Runs alertmon's own code in a child process as a user runs it, compiled by `tsc` into dist/
// and started as `npm start` starts it: the one way tests and benchmarks start the service,
// wait until it is ready, and stop it. The sources are compiled once per process that starts
// one (tsc, 1-3 s), so what runs is never older than the sources. Through tsx instead, each
// start took 0.3-1 s longer, and the benchmarks measured code with tsx's loader and esbuild's
// helpers in it rather than the code users run.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { packageManifest, projectRoot } from '../../src/paths.js';

export interface ServiceProcessOptions {
  /** Set over the inherited environment and the defaults (HOST=127.0.0.1, a free PORT, LOG_LEVEL=info). */
  readonly env: Readonly<Record<string, string>>;
  /** Inherited variables whose names match are not passed on (a benchmark keeps the service on its own settings). */
  readonly dropInherited?: RegExp;
  /** Node options after those `npm start` runs with, e.g. `--cpu-prof`. */
  readonly nodeArgs?: readonly string[];
  /** How long /readyz may take to answer 200 after the start (default 60 s). */
  readonly readyTimeoutMs?: number;
  /** Each line the service writes is also written to this process's stderr, after this prefix. */
  readonly echoPrefix?: string;
  /** A process group of its own, so that a Ctrl-C reaches only this process, which then stops the service with one SIGTERM. */
  readonly detached?: boolean;
  /** The checkout whose service runs (default: this one), e.g. a worktree of the commit before, to compare in one sitting. */
  readonly root?: string;
}

export interface StopOptions {
  readonly signal?: NodeJS.Signals;
  /** After this long (default 60 s) the process is sent SIGKILL. */
  readonly timeoutMs?: number;
}

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly url: string;
  /** What the service has written to stdout and stderr so far, chunk by chunk. */
  readonly output: string[];
  /** Sends the signal (SIGTERM), then SIGKILL if it has not exited in time; resolves with the exit code. A second call waits for the first. */
  stop(options?: StopOptions): Promise<number | null>;
  /** SIGKILL, as a crash would; resolves once the process has exited. */
  kill(): Promise<void>;
}

const DEFAULT_READY_TIMEOUT_MS = 60_000;
const DEFAULT_STOP_TIMEOUT_MS = 60_000;
const READY_POLL_MS = 50;
// The port is picked here and bound by the service a moment later; another process may take it in between.
const PORT_ATTEMPTS = 3;

/** The Node options `npm start` runs the service with (package.json). */
const START_NODE_ARGS = (packageManifest.scripts.start ?? '').split(' ').filter((a) => a.startsWith('--'));

const compiled = new Map<string, Promise<void>>();

/**
 * Compiles the checkout's sources into its dist/ (as `npm run build` does, without the browser
 * code), once per process; not at all where ALERTMON_DIST_COMPILED names the checkout:
 * scripts/test.ts compiles it once before it starts its mocha processes side by side, so that
 * no process rewrites dist/ while another starts a service from it.
 */
function compile(root: string): Promise<void> {
  if (process.env.ALERTMON_DIST_COMPILED === path.resolve(root)) return Promise.resolve();
  let done = compiled.get(root);
  if (!done) {
    done = runNode([path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], root).then(({ code, stdout, stderr }) => {
      if (code !== 0) throw new Error(`tsc -p tsconfig.build.json failed in ${root} (${code}):\n${stdout}${stderr}`);
    });
    compiled.set(root, done);
  }
  return done;
}

/** The compiled form of a script of the checkout: src/main.ts → dist/src/main.js. */
const compiledPath = (script: string) => path.join('dist', script.replace(/\.ts$/, '.js'));

/** Starts the service and resolves once GET /readyz answers 200; rejects, with the service's output, if it exits or times out first. */
export async function startServiceProcess(options: ServiceProcessOptions): Promise<ServiceProcess> {
  await compile(options.root ?? projectRoot);
  for (let attempt = 1; ; attempt++) {
    const port = options.env.PORT ?? String(await freePort());
    try {
      return await startOnPort(options, port);
    } catch (err) {
      const portTaken = err instanceof ServiceExited && err.output.includes('EADDRINUSE');
      if (!portTaken || options.env.PORT !== undefined || attempt === PORT_ATTEMPTS) throw err;
    }
  }
}

class ServiceExited extends Error {
  constructor(
    code: number | null,
    readonly output: string,
  ) {
    super(`the service exited with ${code} before it was ready:\n${output}`);
  }
}

async function startOnPort(options: ServiceProcessOptions, port: string): Promise<ServiceProcess> {
  const dropped = options.dropInherited;
  const inherited = dropped ? Object.fromEntries(Object.entries(process.env).filter(([name]) => !dropped.test(name))) : process.env;
  const child = spawn(process.execPath, [...START_NODE_ARGS, ...(options.nodeArgs ?? []), compiledPath('src/main.ts')], {
    cwd: options.root ?? projectRoot,
    env: { ...inherited, HOST: '127.0.0.1', PORT: port, LOG_LEVEL: 'info', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  if (child.pid === undefined) throw new Error('the service process could not be started');
  const pid = child.pid;
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  // 'close' comes once its output is read to the end, which 'exit' may precede.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  // A service must not outlive the test or benchmark that started it, however that ends.
  const killAtExit = () => child.kill('SIGKILL');
  process.once('exit', killAtExit);
  void exited.then(() => process.off('exit', killAtExit));
  const output = keepOutput(child, options.echoPrefix);

  let stopping: Promise<number | null> | null = null;
  const service: ServiceProcess = {
    child,
    pid,
    url: `http://127.0.0.1:${port}`,
    output,
    stop: ({ signal = 'SIGTERM', timeoutMs = DEFAULT_STOP_TIMEOUT_MS } = {}) => (stopping ??= stopChild(child, exited, signal, timeoutMs)),
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
  try {
    await waitUntilReady(service.url, exited, options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS, () => listensOn(pid, Number(port)));
  } catch (err) {
    await service.kill();
    await closed;
    if (err instanceof ReadyTimeout) throw new Error(`${err.message}:\n${output.join('')}`);
    const [code] = await exited;
    throw new ServiceExited(code, output.join(''));
  }
  return service;
}

/** A port nobody listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function keepOutput(child: ChildProcess, echoPrefix: string | undefined): string[] {
  const output: string[] = [];
  const onData = (chunk: Buffer) => {
    const text = chunk.toString();
    output.push(text);
    if (echoPrefix === undefined) return;
    for (const line of text.split('\n')) if (line.trim() !== '') process.stderr.write(`${echoPrefix}${line}\n`);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return output;
}

class ReadyTimeout extends Error {}

/**
 * Whether process `pid` listens on `port`: its sockets (the inodes of /proc/<pid>/fd) against
 * the listening ones of /proc/<pid>/net/tcp and tcp6. True where /proc cannot tell (not Linux).
 */
function listensOn(pid: number, port: number): boolean {
  if (process.platform !== 'linux') return true;
  try {
    const inodes = new Set<string>();
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode !== undefined) inodes.add(inode);
      } catch {
        // closed meanwhile
      }
    }
    const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
    return ['tcp', 'tcp6'].some((table) =>
      readFileSync(`/proc/${pid}/net/${table}`, 'utf8')
        .split('\n')
        .slice(1)
        .map((line) => line.trim().split(/\s+/))
        // local address (ip:port, hex), state (0A: listening), inode
        .some((f) => f[1]?.endsWith(`:${hexPort}`) && f[3] === '0A' && inodes.has(f[9] ?? '')),
    );
  } catch {
    // The process is gone: it listens on nothing.
    return false;
  }
}

/**
 * Polls /readyz until it answers 200 from the child itself (`owned`): the port was free when it
 * was picked, and another process may have bound it before the child did (the child then
 * fails, or retries on another port) and must not pass for it.
 */
async function waitUntilReady(url: string, exited: Promise<unknown>, timeoutMs: number, owned: () => boolean): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gone) throw new Error('exited');
    try {
      if ((await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) })).status === 200 && owned()) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
  }
  throw new ReadyTimeout(`the service was not ready within ${timeoutMs / 1000} s`);
}

async function stopChild(
  child: ChildProcess,
  exited: Promise<[number | null, NodeJS.Signals | null]>,
  signal: NodeJS.Signals,
  timeoutMs: number,
): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  child.kill(signal);
  const timer = setTimeout(() => {
    process.stderr.write(`the service did not stop within ${timeoutMs / 1000} s of ${signal}; killing it\n`);
    child.kill('SIGKILL');
  }, timeoutMs);
  const [code] = await exited;
  clearTimeout(timer);
  return code;
}

/** Runs a script of this repository (e.g. scripts/token.ts), compiled as `npm run token` runs it, to its end; its exit code and output. */
export async function runScript(script: string, args: string[], env: Record<string, string>): Promise<RunResult> {
  await compile(projectRoot);
  return runNode([...START_NODE_ARGS, compiledPath(script), ...args], projectRoot, env);
}

interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs Node with these arguments in `cwd` to its end; its exit code and output. */
function runNode(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
