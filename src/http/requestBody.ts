// The one place request bodies are read (JSON routes, log batches, OTLP, remote-write), through
// co-body and raw-body: the bytes as sent, inflated as Content-Encoding says where the route takes
// compressed bodies, each bounded as it streams, so neither a large body nor a small gzip bomb takes memory.
//
// A body refused while it is read leaves the rest of it on the connection. Left there, the
// connection hangs: the next request on it is never read (a kept-alive client loses it).
// settleUnreadBody, run after every answer, reads what is left and throws it away, within
// bounds; past them the answer says Connection: close and the connection is closed after it.
import type { IncomingMessage } from 'node:http';
import coBody from 'co-body';
import type { Context, Middleware } from 'koa';
import getRawBody from 'raw-body';
import type { AppState } from './context.js';
import { HttpError } from './httpError.js';

export type Inflatable = 'gzip' | 'deflate' | 'br';

export interface BodyBounds {
  /** The most bytes taken as sent. */
  readonly wireBytes: number;
  /**
   * The Content-Encodings inflated here (any other is 415) and the most bytes taken once
   * inflated. Absent: the bytes as sent, whatever Content-Encoding says (remote-write's snappy
   * block is inflated by its route).
   */
  readonly inflated?: { readonly encodings: readonly Inflatable[]; readonly maxBytes: number };
}

/** What is read and thrown away of a refused body, at most, before the connection is closed instead. */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
const DRAIN_MAX_MS = 10_000;

const sizeText = (bytes: number) =>
  bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : bytes % 1024 === 0 ? `${bytes / 1024} KB` : `${bytes} bytes`;

/** 413 for a body over `bytes` (`once` says: once decompressed). */
export const bodyTooLarge = (bytes: number, once = '') =>
  new HttpError(413, 'payload_too_large', `The request body is larger than ${sizeText(bytes)}${once}; nothing of it was stored.`);

/** 415 unless the Content-Encoding is identity or one the route inflates; whether the body is to be inflated. */
function isEncoded(ctx: Context, encodings: readonly Inflatable[]): boolean {
  const encoding = ctx.get('Content-Encoding').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return false;
  if (!(encodings as readonly string[]).includes(encoding)) {
    throw new HttpError(415, 'unsupported_media_type', `Content-Encoding must be ${[...encodings, 'identity'].join(', ')} or none.`);
  }
  return true;
}

/** What co-body, raw-body or zlib refused, as the answer says it. */
function refusal(ctx: Context, err: unknown, maxBytes: number, encoded: boolean): Error {
  if (err instanceof HttpError) return err;
  const { type, code } = err as { type?: string; code?: string };
  if (type === 'entity.too.large') return bodyTooLarge(maxBytes, encoded ? ' once decompressed' : '');
  if (type === 'request.aborted' || type === 'request.size.invalid') {
    return new HttpError(400, 'request_aborted', 'The request body ended before it was complete.');
  }
  if (typeof code === 'string' && code.startsWith('Z_')) {
    return new HttpError(400, 'malformed_body', `The request body is not valid ${ctx.get('Content-Encoding').trim()}.`);
  }
  return err as Error;
}

/**
 * The body's bytes within `bounds` (an empty buffer when there is none); 413, 415 or 400
 * otherwise. co-body reads them, inflating gzip, deflate and br as they arrive and counting the
 * bytes once inflated; a body taken as sent is read by raw-body (co-body's reader), which is
 * given the declared length to hold it to.
 */
export async function readBodyBytes(ctx: Context, bounds: BodyBounds): Promise<Buffer> {
  const declared = ctx.get('Content-Length');
  if (Number(declared || '0') > bounds.wireBytes) throw bodyTooLarge(bounds.wireBytes);
  let encoded = false;
  try {
    if (bounds.inflated === undefined) return await getRawBody(ctx.req, { limit: bounds.wireBytes, length: declared === '' ? undefined : declared });
    encoded = isEncoded(ctx, bounds.inflated.encodings);
    // Without an encoding, co-body's text reader gives the bytes; they are decoded where they are parsed.
    return (await coBody.text(ctx, { limit: encoded ? bounds.inflated.maxBytes : bounds.wireBytes, encoding: null as unknown as string })) as unknown as Buffer;
  } catch (err) {
    throw refusal(ctx, err, encoded ? bounds.inflated!.maxBytes : bounds.wireBytes, encoded);
  }
}

/** Whether nothing of the request's body is left to read. */
const bodyDone = (req: IncomingMessage) => req.readableEnded || req.destroyed || (req.complete && req.readableLength === 0);

/** Reads and throws away the rest of a body, within bounds; whether it reached its end. */
function drain(req: IncomingMessage): Promise<boolean> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > DRAIN_MAX_BYTES) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (drained: boolean) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('close', onClose);
      if (!drained) req.pause();
      resolve(drained);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_MAX_BYTES) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(req.readableEnded);
    const timer = setTimeout(() => finish(false), DRAIN_MAX_MS);
    // A refused body may still be piped into its inflater, which stopped reading: drain the request alone.
    req.unpipe();
    req.on('data', onData).once('end', onEnd).once('close', onClose);
    req.resume();
  });
}

/**
 * After every answer: a body its route did not read to the end (refused while it was read, or
 * before: a 401, 404, 413 by Content-Length) is drained, so the connection serves its next
 * request; past the drain's bounds the answer closes the connection.
 */
export function settleUnreadBody(): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      if (!bodyDone(ctx.req) && !(await drain(ctx.req))) ctx.set('Connection', 'close');
    }
  };
}
