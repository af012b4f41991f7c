// The closed loop: `concurrency` clients, each sending the next unsent batch as soon as its
// previous one is answered, over keep-alive connections. A 429 or 503 is the service's
// documented "retry later" answer and is retried; any other failure is counted and the batch
// given up.
import http from 'node:http';
import type { RequestBatch } from './dataset.js';

export interface LoadOptions {
  readonly url: string;
  readonly token: string;
  readonly batches: readonly RequestBatch[];
  readonly concurrency: number;
  readonly maxDurationMs: number;
  /** Stops the load at once (interrupt): no new request, and those in flight are cut. */
  readonly signal: AbortSignal;
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

interface Answer {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly body: string;
}

const REQUEST_TIMEOUT_MS = 120_000;
const MAX_RETRY_PAUSE_MS = 200;
const DEFAULT_RETRY_PAUSE_MS = 50;
const MAX_ERROR_SAMPLES = 5;
const PROGRESS_EVERY_MS = 5_000;

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const target = new URL('/v1.0/logs', options.url);
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
      let answer: Answer;
      try {
        answer = await post(agent, target, options.token, batch.body);
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
        sample(`${answer.status}: ${answer.body.slice(0, 300)}`);
        return;
      }
      state.overloadedAnswers++;
      await pause(retryPauseMs(answer.retryAfter));
    }
  }

  async function client(): Promise<void> {
    while (!stopped() && next < options.batches.length) await deliver(options.batches[next++]!);
  }

  const started = performance.now();
  const deadline = setTimeout(() => {
    state.timedOut = true;
    agent.destroy();
  }, options.maxDurationMs);
  const abort = () => {
    state.aborted = true;
    agent.destroy();
  };
  options.signal.addEventListener('abort', abort);
  const total = options.batches.reduce((sum, b) => sum + b.records, 0).toLocaleString('en-US');
  const progress = setInterval(() => {
    process.stderr.write(`  … ${state.acceptedRecords.toLocaleString('en-US')} / ${total} records accepted, ${state.overloadedAnswers} × 429/503\n`);
  }, PROGRESS_EVERY_MS);
  try {
    await Promise.all(Array.from({ length: options.concurrency }, client));
  } finally {
    clearTimeout(deadline);
    clearInterval(progress);
    options.signal.removeEventListener('abort', abort);
    agent.destroy();
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

function post(agent: http.Agent, target: URL, token: string, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': body.length },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        // The body of a 200 is empty; an error's body is kept to show what went wrong.
        response.on('data', (chunk: Buffer) => status !== 200 && chunks.push(chunk));
        response.on('end', () => resolve({ status, retryAfter: header(response.headers['retry-after']), body: Buffer.concat(chunks).toString() }));
        response.on('error', reject);
      },
    );
    request.setTimeout(REQUEST_TIMEOUT_MS, () => request.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
    request.on('error', reject);
    request.end(body);
  });
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
