// Log batches are parsed, validated and serialised for the journal in worker threads, off the
// event loop. At full load the main thread was the bottleneck, and parsing a batch's JSON,
// validating its records and serialising them took a third of it (CPU profiles of the
// closed-loop benchmark): that work runs here on the other cores, and the batch comes back
// as a few typed arrays, transferred, while the main thread answers HTTP, deduplicates,
// journals and inserts.
//
// Validation is pure (the batch, the time it was received, the batch limit), so the threads
// keep no state: a batch goes to the thread with the fewest batches in hand, and a thread that
// stops is replaced at the next batch (the batches it held fail as a defect would, with 500).
// A pool of threads is a ParserThreads; the composition root (src/services.ts) hands one to the
// intake (intake.ts). The threads hold the cumulative series of the standard formats, so one
// pool serves a process: `sharedParserThreads`, shared by every service of the process. Its
// threads start at the first batch and do not keep the process alive when idle.
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { AppError, type AppErrorOptions, type ErrorDetail, type ErrorKind } from '../../errors.js';
import { movableMemory } from '../../movableMemory.js';
import { invalidJson } from '../../validation/jsonText.js';
import type { PreparedBatch } from '../journaledBatch.js';
import type { PointJob, PointReply } from './pointRequest.js';

/** One core is the main thread's; up to four parse. */
export const PARSER_THREADS = Math.max(1, Math.min(4, availableParallelism() - 1));

export interface ParseJob {
  readonly id: number;
  /** The body's bytes (readJsonBytes); null when the request had none. */
  readonly body: Uint8Array | null;
  readonly workspaceId: string;
  readonly receivedAt: number;
  readonly maxRecords: number;
}

export type ParseReply =
  | { readonly id: number; readonly batch: PreparedBatch }
  | { readonly id: number; readonly invalidJson: true }
  | {
      readonly id: number;
      /** An AppError's fields (an Error loses them on its way between threads). */
      readonly refused: { kind: ErrorKind; code: string; message: string; details: readonly ErrorDetail[]; options: AppErrorOptions };
      /** How many records the refused batch held (0 if it was not an array). */
      readonly recordCount: number;
    }
  | { readonly id: number; readonly unexpected: string };

/** Told to the thread that mapped a point request once its records are journaled, or not (pointRequest.ts). */
export interface SettlePoints {
  readonly settle: number;
  readonly journaled: boolean;
}

/** A point request mapped by a parser thread; `settle` must be called once, when its records are journaled or failed. */
export interface MappedPoints {
  readonly reply: PointReply;
  settle(journaled: boolean): void;
}

/** A batch refused by validation, and the number of records it held. */
export class BatchRefused extends Error {
  constructor(
    readonly error: AppError,
    readonly recordCount: number,
  ) {
    super(error.message);
  }
}

// From the sources (tests, `tsx`), a worker thread does not inherit tsx's loader: it registers
// it first. The built service starts the compiled worker directly.
const fromSources = import.meta.url.endsWith('.ts');
const WORKER_ENTRY = new URL(fromSources ? './batchParserWorker.ts' : './batchParserWorker.js', import.meta.url);
const TSX_BOOTSTRAP = `const { workerData } = require('node:worker_threads');
import(workerData.tsx).then((tsx) => { tsx.register(); return import(workerData.entry); });`;

/**
 * tsx's ESM loader API (the export `tsx/esm/api` names for import), found from here:
 * import.meta.resolve is missing where tsx runs this file as CommonJS, and the CommonJS build
 * of that API fails to register from a worker.
 */
const tsxApi = () => pathToFileURL(path.join(path.dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs')).href;

class ParserThread {
  readonly pending = new Map<number, { resolve(batch: PreparedBatch): void; reject(err: Error): void }>();
  readonly pendingPoints = new Map<number, { resolve(reply: PointReply): void; reject(err: Error): void }>();
  private readonly worker: Worker;

  constructor(onStop: (thread: ParserThread) => void) {
    this.worker = fromSources ? new Worker(TSX_BOOTSTRAP, { eval: true, workerData: { tsx: tsxApi(), entry: WORKER_ENTRY.href } }) : new Worker(WORKER_ENTRY);
    this.worker.unref();
    // Job ids are unique across both kinds.
    this.worker.on('message', (reply: ParseReply | PointReply) =>
      this.pendingPoints.has(reply.id) ? this.settlePoints(reply as PointReply) : this.settle(reply as ParseReply),
    );
    const stop = (reason: string) => {
      onStop(this);
      for (const { reject } of [...this.pending.values(), ...this.pendingPoints.values()]) reject(new Error(`a log batch parser thread stopped: ${reason}`));
      this.pending.clear();
      this.pendingPoints.clear();
    };
    this.worker.on('error', (err) => stop(err.message));
    this.worker.on('exit', (code) => stop(`exit code ${code}`));
  }

  parse(job: ParseJob): Promise<PreparedBatch> {
    return new Promise((resolve, reject) => {
      // Kept alive only while it holds a batch.
      if (this.load === 0) this.worker.ref();
      this.pending.set(job.id, { resolve, reject });
      this.worker.postMessage(job, movableMemory([job.body]));
    });
  }

  get load(): number {
    return this.pending.size + this.pendingPoints.size;
  }

  mapPoints(job: PointJob): Promise<PointReply> {
    return new Promise((resolve, reject) => {
      if (this.load === 0) this.worker.ref();
      this.pendingPoints.set(job.id, { resolve, reject });
      this.worker.postMessage(job, movableMemory([job.body]));
    });
  }

  settlePointsOf(id: number, journaled: boolean): void {
    const message: SettlePoints = { settle: id, journaled };
    // A thread that stopped meanwhile took its cumulative series with it: nothing to tell.
    try {
      this.worker.postMessage(message);
    } catch {}
  }

  private settlePoints(reply: PointReply): void {
    const waiting = this.pendingPoints.get(reply.id);
    if (!waiting) return;
    this.pendingPoints.delete(reply.id);
    if (this.load === 0) this.worker.unref();
    waiting.resolve(reply);
  }

  private settle(reply: ParseReply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (this.load === 0) this.worker.unref();
    if ('batch' in reply) waiting.resolve(reply.batch);
    else if ('invalidJson' in reply) waiting.reject(invalidJson());
    else if ('refused' in reply) {
      const { kind, code, message, details, options } = reply.refused;
      waiting.reject(new BatchRefused(new AppError(kind, code, message, details, options), reply.recordCount));
    } else waiting.reject(new Error(reply.unexpected));
  }
}

/** The parser threads of a process: log batches go to the least loaded, a workspace's point requests always to the same one. */
export class ParserThreads {
  private readonly threads: ParserThread[] = [];
  private nextJobId = 0;

  /** Starts threads up to PARSER_THREADS (at the first batch, and after one stopped). */
  private fill(): void {
    const { threads } = this;
    while (threads.length < PARSER_THREADS) {
      threads.push(
        new ParserThread((stopped) => {
          const at = threads.indexOf(stopped);
          if (at >= 0) threads.splice(at, 1);
        }),
      );
    }
  }

  /**
   * The records of a batch's body, validated (validateLogBatch.ts) and prepared for the
   * workspace's journal (journaledBatch.ts). Throws `invalid` invalid_json for text that is not
   * JSON, BatchRefused for a batch validation refuses. The body's memory may move to the parser thread.
   */
  parseLogBatch(body: Uint8Array | null, workspaceId: string, receivedAt: number, maxRecords: number): Promise<PreparedBatch> {
    this.fill();
    let least = this.threads[0]!;
    for (const thread of this.threads) if (thread.load < least.load) least = thread;
    return least.parse({ id: this.nextJobId++, body, workspaceId, receivedAt, maxRecords });
  }

  /**
   * An OTLP or remote-write request decoded, counted, mapped and prepared for the journal in a
   * parser thread (pointRequest.ts): always the same thread for a workspace while the
   * threads run, as that thread holds the workspace's cumulative series. The body's memory may
   * move to the thread. Rejects only when the thread stopped (a defect, 500).
   */
  async mapPointRequest(job: Omit<PointJob, 'id'>): Promise<MappedPoints> {
    this.fill();
    const thread = this.threads[workspaceSlot(job.workspaceId, this.threads.length)]!;
    const id = this.nextJobId++;
    const reply = await thread.mapPoints({ ...job, id });
    let settled = false;
    return {
      reply,
      settle(journaled) {
        if (settled) return;
        settled = true;
        thread.settlePointsOf(id, journaled);
      },
    };
  }
}

/** The one pool of the process (the cumulative series of its workspaces live in its threads). */
export const sharedParserThreads = new ParserThreads();

/** A batch parsed by the process's pool (ParserThreads.parseLogBatch). */
export const parseLogBatch = (body: Uint8Array | null, workspaceId: string, receivedAt: number, maxRecords: number): Promise<PreparedBatch> =>
  sharedParserThreads.parseLogBatch(body, workspaceId, receivedAt, maxRecords);

/** The thread of a workspace: a hash of its id. */
function workspaceSlot(workspaceId: string, slots: number): number {
  let hash = 0;
  for (let i = 0; i < workspaceId.length; i++) hash = (hash * 31 + workspaceId.charCodeAt(i)) | 0;
  return Math.abs(hash) % slots;
}
