// The journal's disk writes run on a worker thread of their own, with synchronous calls:
// an fsync then never waits behind ClickHouse work in libuv's thread pool (chDB runs its
// queries there), and the event loop never waits for the disk. The worker holds the open
// segment and does one thing per message: open a segment (fsyncing the folder when it is
// new), or append buffers and fdatasync them. A failed append is cut back off the file, so
// that a later append never lands behind half a frame.
import { Worker } from 'node:worker_threads';
import { movableMemory } from '../../movableMemory.js';

// Plain JavaScript, evaluated as the worker's script: no loader is needed under tsx or node.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
let fd = null;
let size = 0;
function syncFolder(path) {
  const dir = fs.openSync(path, 'r');
  try { fs.fsyncSync(dir); } finally { fs.closeSync(dir); }
}
parentPort.on('message', (job) => {
  try {
    if (job.kind === 'open') {
      if (fd !== null) fs.closeSync(fd);
      fd = null;
      fd = fs.openSync(job.path, 'a');
      size = fs.fstatSync(fd).size;
      if (job.folder) syncFolder(job.folder);
    } else if (job.kind === 'append') {
      let written = 0;
      const total = job.buffers.reduce((n, b) => n + b.length, 0);
      while (written < total) {
        let skip = written;
        const rest = [];
        for (const b of job.buffers) {
          if (skip >= b.length) { skip -= b.length; continue; }
          rest.push(skip > 0 ? b.subarray(skip) : b);
          skip = 0;
        }
        written += fs.writevSync(fd, rest);
      }
      fs.fdatasyncSync(fd);
      size += total;
    } else if (job.kind === 'close') {
      if (fd !== null) fs.closeSync(fd);
      fd = null;
    }
    parentPort.postMessage({ id: job.id, ok: true, size });
  } catch (err) {
    if (job.kind === 'append' && fd !== null) {
      try { fs.ftruncateSync(fd, size); } catch {}
    }
    parentPort.postMessage({ id: job.id, ok: false, message: String(err && err.message), code: err && err.code });
  }
});
`;

export class SyncWorkerError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'SyncWorkerError';
  }
}

type Job = { kind: 'open'; path: string; folder: string | null } | { kind: 'append'; buffers: Buffer[] } | { kind: 'close' };
interface Reply {
  readonly id: number;
  readonly ok: boolean;
  readonly size: number;
  readonly message?: string;
  readonly code?: string;
}

export class SyncWorker {
  private readonly worker = new Worker(WORKER_SOURCE, { eval: true });
  private readonly waiting = new Map<number, { resolve(size: number): void; reject(err: Error): void }>();
  private nextId = 0;
  private failure: Error | null = null;

  constructor() {
    this.worker.on('message', (reply: Reply) => {
      const w = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (reply.ok) w?.resolve(reply.size);
      else w?.reject(new SyncWorkerError(reply.message ?? 'journal write failed', reply.code));
    });
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => this.fail(new Error(`the journal's writer thread exited (code ${code})`)));
    this.worker.unref();
  }

  /** Opens (or creates) a segment for appending; fsyncs `folder` when given. Resolves with its size. */
  open(path: string, folder: string | null): Promise<number> {
    return this.run({ kind: 'open', path, folder });
  }

  /**
   * Appends the buffers to the open segment and fdatasyncs it; resolves with its new size.
   * Buffers that own their memory move to the thread rather than being copied: they are
   * empty afterwards.
   */
  append(buffers: Buffer[]): Promise<number> {
    return this.run({ kind: 'append', buffers }, movableMemory(buffers));
  }

  async close(): Promise<void> {
    if (this.failure === null) await this.run({ kind: 'close' }).catch(() => {});
    this.failure ??= new Error('the journal is closed');
    await this.worker.terminate();
  }

  private run(job: Job, transfer: ArrayBuffer[] = []): Promise<number> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    // The thread keeps the process alive only while a job waits for it.
    if (this.waiting.size === 0) this.worker.ref();
    return new Promise<number>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ ...job, id }, transfer);
    }).finally(() => {
      if (this.waiting.size === 0) this.worker.unref();
    });
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}
