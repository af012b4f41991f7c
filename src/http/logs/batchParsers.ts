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
// The threads are shared by every service of the process and do not keep it alive when idle.
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { AppError, type AppErrorOptions, type ErrorDetail, type ErrorKind } from '../../errors.js';
import type { PreparedBatch } from '../../ingest/journaledBatch.js';
import { movableMemory } from '../../movableMemory.js';
import { invalidJson } from '../middleware/jsonBody.js';

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
  private readonly worker: Worker;

  constructor(onStop: (thread: ParserThread) => void) {
    this.worker = fromSources ? new Worker(TSX_BOOTSTRAP, { eval: true, workerData: { tsx: tsxApi(), entry: WORKER_ENTRY.href } }) : new Worker(WORKER_ENTRY);
    this.worker.unref();
    this.worker.on('message', (reply: ParseReply) => this.settle(reply));
    const stop = (reason: string) => {
      onStop(this);
      for (const { reject } of this.pending.values()) reject(new Error(`a log batch parser thread stopped: ${reason}`));
      this.pending.clear();
    };
    this.worker.on('error', (err) => stop(err.message));
    this.worker.on('exit', (code) => stop(`exit code ${code}`));
  }

  parse(job: ParseJob): Promise<PreparedBatch> {
    return new Promise((resolve, reject) => {
      // Kept alive only while it holds a batch.
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(job.id, { resolve, reject });
      this.worker.postMessage(job, movableMemory([job.body]));
    });
  }

  private settle(reply: ParseReply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if ('batch' in reply) waiting.resolve(reply.batch);
    else if ('invalidJson' in reply) waiting.reject(invalidJson());
    else if ('refused' in reply) {
      const { kind, code, message, details, options } = reply.refused;
      waiting.reject(new BatchRefused(new AppError(kind, code, message, details, options), reply.recordCount));
    } else waiting.reject(new Error(reply.unexpected));
  }
}

const threads: ParserThread[] = [];
let nextJobId = 0;

/**
 * The records of a batch's body, validated (validateLogBatch.ts) and prepared for the
 * workspace's journal (journaledBatch.ts). Throws 400 invalid_json for text that is not JSON,
 * BatchRefused for a batch validation refuses. The body's memory may move to the parser thread.
 */
export function parseLogBatch(body: Uint8Array | null, workspaceId: string, receivedAt: number, maxRecords: number): Promise<PreparedBatch> {
  while (threads.length < PARSER_THREADS) {
    threads.push(
      new ParserThread((stopped) => {
        const at = threads.indexOf(stopped);
        if (at >= 0) threads.splice(at, 1);
      }),
    );
  }
  let least = threads[0]!;
  for (const thread of threads) if (thread.pending.size < least.pending.size) least = thread;
  return least.parse({ id: nextJobId++, body, workspaceId, receivedAt, maxRecords });
}
