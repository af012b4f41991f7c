// The closed loop: `concurrency` clients, each sending the next unsent batch as soon as its
// previous one is answered, over keep-alive connections. A 429 or 503 is the service's
// documented "retry later" answer and is retried; any other failure is counted and the batch
// given up.
import type { RequestBatch } from './dataset.js';
import { type HttpAnswer, LeanHttpClient } from './leanHttp.js';

export interface LoadOptions {
  readonly url: string;
  readonly token: string;
  readonly batches: readonly RequestBatch[];
  readonly concurrency: number;
  readonly maxDurationMs: number;
  /** Stops the load at once (interrupt): no new request, and those in flight are cut. */
  readonly signal: AbortSignal;
  /** The route and the body's media type (default: POST /v1.0/logs, JSON). */
  readonly path?: string;
  readonly contentType?: string;
}

export interface LoadResult {
  readonly wallMs: number;
  /** Each request answered 200, from sending to the end of the answer. */
  readonly requestLatenciesMs: number[];
  /** Each accepted batch, from its first attempt to its 200, 503 retries and pauses included. */
  readonly batchLatenciesMs: number[];
  readonly acceptedRecords: number;
  readonly acceptedRequests: number;
  readonly overloadedAnswers: number;
  /** Status → count, for answers other than 200, 429 and 503. */
  readonly otherStatuses: ReadonlyMap<number, number>;
  readonly transportErrors: number;
  /** The first few failures, as seen by the client. */
  readonly errorSamples: readonly string[];
  readonly timedOut: boolean;
  readonly aborted: boolean;
}

const REQUEST_TIMEOUT_MS = 120_000;
const MAX_RETRY_PAUSE_MS = 200;
const DEFAULT_RETRY_PAUSE_MS = 50;
const MAX_ERROR_SAMPLES = 5;
const PROGRESS_EVERY_MS = 5_000;

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const client = new LeanHttpClient(options.url, options.concurrency, REQUEST_TIMEOUT_MS);
  const headers = { authorization: `Bearer ${options.token}`, 'content-type': options.contentType ?? 'application/json' };
  const path = options.path ?? '/v1.0/logs';
  let next = 0;
  const state = {
    timedOut: false,
    aborted: false,
    requestLatenciesMs: [] as number[],
    batchLatenciesMs: [] as number[],
    acceptedRecords: 0,
    acceptedRequests: 0,
    overloadedAnswers: 0,
    otherStatuses: new Map<number, number>(),
    transportErrors: 0,
    errorSamples: [] as string[],
  };
  const sample = (text: string) => {
    if (state.errorSamples.length < MAX_ERROR_SAMPLES) state.errorSamples.push(text);
  };
  const stopped = () => state.timedOut || state.aborted;

  async function deliver(batch: RequestBatch): Promise<void> {
    const firstTry = performance.now();
    while (!stopped()) {
      const sentAt = performance.now();
      let answer: HttpAnswer;
      try {
        answer = await client.send(client.head('POST', path, headers, batch.body.length), batch.body);
      } catch (err) {
        state.transportErrors++;
        sample(`transport error: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
      const now = performance.now();
      if (answer.status === 200) {
        state.requestLatenciesMs.push(now - sentAt);
        state.batchLatenciesMs.push(now - firstTry);
        state.acceptedRecords += batch.records;
        state.acceptedRequests++;
        return;
      }
      if (answer.status !== 503 && answer.status !== 429) {
        state.otherStatuses.set(answer.status, (state.otherStatuses.get(answer.status) ?? 0) + 1);
        sample(`${answer.status}: ${answer.body.toString('utf8', 0, 300)}`);
        return;
      }
      state.overloadedAnswers++;
      await pause(retryPauseMs(answer.headers.get('retry-after')));
    }
  }

  async function sender(): Promise<void> {
    while (!stopped() && next < options.batches.length) await deliver(options.batches[next++]!);
  }

  const started = performance.now();
  const deadline = setTimeout(() => {
    state.timedOut = true;
    client.destroy();
  }, options.maxDurationMs);
  const abort = () => {
    state.aborted = true;
    client.destroy();
  };
  options.signal.addEventListener('abort', abort);
  const total = options.batches.reduce((sum, b) => sum + b.records, 0).toLocaleString('en-US');
  const progress = setInterval(() => {
    process.stderr.write(`  … ${state.acceptedRecords.toLocaleString('en-US')} / ${total} records accepted, ${state.overloadedAnswers} × 429/503\n`);
  }, PROGRESS_EVERY_MS);
  try {
    await Promise.all(Array.from({ length: options.concurrency }, sender));
  } finally {
    clearTimeout(deadline);
    clearInterval(progress);
    options.signal.removeEventListener('abort', abort);
    client.destroy();
  }
  return { ...state, wallMs: performance.now() - started };
}

/** Retry-After is in seconds; a benchmark client retries sooner, but never hammers. */
function retryPauseMs(retryAfter: string | undefined): number {
  const seconds = Number(retryAfter);
  return retryAfter !== undefined && Number.isFinite(seconds) ? Math.min(seconds * 1000, MAX_RETRY_PAUSE_MS) : DEFAULT_RETRY_PAUSE_MS;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
