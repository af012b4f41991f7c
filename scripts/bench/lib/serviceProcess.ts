// The service under test: src/main.ts in a child process of its own on the embedded stores,
// so that its CPU and memory are its own and can be measured apart from the clients.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import { packageManifest, projectRoot } from '../../../src/paths.js';
import { onCleanup } from './cleanup.js';

export interface ServiceProcess {
  readonly pid: number;
  readonly url: string;
  readonly adminToken: string;
  /** SIGTERM, then SIGKILL when it has not exited within timeoutMs; resolves with the exit code. */
  stop(timeoutMs?: number): Promise<number | null>;
}

const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 60_000;

// Variables that would take the service off the embedded stores or change what is measured.
const OVERRIDDEN = /^(CLICKHOUSE_|DATABASE_URL$|ROLE$|LOGS_PORT$|INGEST_)/;

/**
 * The Node options `npm start` runs the service with (package.json), so that what is measured
 * is what runs; then BENCH_SERVICE_NODE_ARGS, extra options for the service, e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it.
 */
function serviceNodeArgs(): string[] {
  const started = (packageManifest.scripts.start ?? '').split(' ').filter((a) => a.startsWith('--'));
  return [...started, ...(process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter((a) => a !== '')];
}

export async function startServiceProcess(dataDir: string, ingestEnv: Readonly<Record<string, string>>): Promise<ServiceProcess> {
  const port = await freePort();
  const adminToken = `bench-admin-${randomBytes(16).toString('hex')}`;
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !OVERRIDDEN.test(name)));
  const child = spawn(process.execPath, [...serviceNodeArgs(), '--import', 'tsx', 'src/main.ts'], {
    cwd: projectRoot,
    env: { ...inherited, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', ADMIN_TOKEN: adminToken, LOG_LEVEL: 'warn', ...ingestEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own: Ctrl-C reaches only the benchmark, which then stops the
    // service with one SIGTERM (a second signal would make it exit without cleaning up).
    detached: true,
  });
  if (child.pid === undefined) throw new Error('the service process could not be started');
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  forwardOutput(child);

  let stopping: Promise<number | null> | null = null;
  const stop = (timeoutMs = STOP_TIMEOUT_MS) => (stopping ??= stopChild(child, exited, timeoutMs));
  const killAtExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  onCleanup(async () => {
    await stop(10_000);
  }, killAtExit);

  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady(url, exited);
  return { pid: child.pid, url, adminToken, stop };
}

/** A port nobody listens on right now (the service binds it a moment later). */
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

/** The service logs only warnings and errors here; they are worth seeing next to the figures. */
function forwardOutput(child: ChildProcess): void {
  const forward = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line.trim() !== '') process.stderr.write(`[service] ${line}\n`);
  };
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
}

async function waitUntilReady(url: string, exited: Promise<unknown>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (gone) throw new Error('the service exited before it was ready (see its output above)');
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`the service was not ready within ${READY_TIMEOUT_MS / 1000} s`);
}

async function stopChild(child: ChildProcess, exited: Promise<[number | null, NodeJS.Signals | null]>, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    process.stderr.write(`the service did not stop within ${timeoutMs / 1000} s of SIGTERM; killing it\n`);
    child.kill('SIGKILL');
  }, timeoutMs);
  const [code] = await exited;
  clearTimeout(timer);
  return code;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function adminPost<T>(service: ServiceProcess, path: string, body: unknown, expectedStatus: number): Promise<T> {
  const response = await fetch(`${service.url}/v1.0/admin${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expectedStatus) throw new Error(`POST /v1.0/admin${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

export async function issueWorkspaceToken(service: ServiceProcess, workspaceId: string): Promise<string> {
  return (await adminPost<{ token: string }>(service, '/tokens', { user_id: workspaceId }, 201)).token;
}

/** Runs a read-only query through the admin SQL API; the rows as JSON objects. */
export function querySql<T>(service: ServiceProcess, query: string): Promise<T[]> {
  return adminPost<T[]>(service, '/sql', { query }, 200);
}

/** Runs a query that returns one row with one numeric column `n`. */
export async function queryNumber(service: ServiceProcess, query: string): Promise<number> {
  const rows = await querySql<{ n: number | string | null }>(service, query);
  return Number(rows[0]?.n ?? NaN);
}

export async function scrapeMetrics(service: ServiceProcess): Promise<string> {
  const response = await fetch(`${service.url}/metrics`);
  if (response.status !== 200) throw new Error(`GET /metrics: ${response.status}`);
  return response.text();
}

/** The value of an unlabelled sample in Prometheus text format, or null when absent. */
export function metricValue(text: string, name: string): number | null {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : null;
}
