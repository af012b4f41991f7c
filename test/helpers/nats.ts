// NATS JetStream for the journal-stream tests: the machine's server at 127.0.0.1:4222 (which
// .ci/run starts), and servers of a test's own, on a free port, that a test may kill.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { testRoot } from './stores.js';

export const MACHINE_NATS_URL = 'nats://127.0.0.1:4222';
const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/** Whether something accepts connections at host:port within a second. */
export function reachable(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

/** A nats-server of the test's own (JetStream, its store in a folder of its own); `kill()` is kill -9, `start()` again keeps the store. */
export class OwnNatsServer {
  private child: ChildProcess | null = null;
  readonly storeDir = mkdtempSync(path.join(testRoot, 'nats-'));

  private constructor(readonly port: number) {}

  static async start(): Promise<OwnNatsServer> {
    const server = new OwnNatsServer(await freePort());
    await server.start();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.child = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir], { stdio: 'ignore' });
    const deadline = Date.now() + 20_000;
    while (!(await reachable(this.port))) {
      if (Date.now() > deadline) throw new Error(`nats-server did not listen on ${this.port}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (child === null || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    this.child = null;
  }
}
