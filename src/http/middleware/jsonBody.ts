// Request bodies are JSON, at most 1 MB (a log batch: see logBodyLimitBytes). A body of
// another content type is refused (415) rather than silently ignored; a request without a
// body parses as {}. A body must be UTF-8: malformed bytes are refused (400 invalid_json),
// never stored as U+FFFD.
//
// Log batches are the exception to parsing here: their route reads the body's bytes
// (readJsonBytes, with the same checks and errors) and decodes and parses them off the event
// loop (http/logs/batchParsers.ts).
import { isUtf8 } from 'node:buffer';
import bourne from '@hapi/bourne';
import coBody from 'co-body';
import type { Context, Middleware } from 'koa';
import type { AppState } from '../context.js';
import { HttpError } from '../httpError.js';

/** The body limit of every route but the log batch's. */
export const MAX_BODY_BYTES = 1024 * 1024;

const sizeText = (bytes: number) => (bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${Math.round(bytes / 1024)} KB`);

/** The error a client is shown for a body that could not be read. */
function bodyError(err: unknown, limitBytes: number): HttpError {
  const status = (err as { status?: number }).status;
  if (status === 413) return new HttpError(413, 'payload_too_large', `The request body is larger than ${sizeText(limitBytes)}.`);
  if (status === 415) return new HttpError(415, 'unsupported_media_type', 'The request body encoding is not supported.');
  return invalidJson();
}

export const invalidJson = () => new HttpError(400, 'invalid_json', 'The request body is not valid JSON.');

const invalidUtf8 = () => new HttpError(400, 'invalid_json', 'The request body is not valid JSON: it is not UTF-8 text.');

/** Whether the request carries a body; a JSON one, or it is refused with 415. */
function hasJsonBody(ctx: Context): boolean {
  if (!(ctx.request.length > 0 || ctx.get('Transfer-Encoding') !== '')) return false;
  if (ctx.request.is('json', '+json') === false) {
    throw new HttpError(415, 'unsupported_media_type', 'Send the body as Content-Type: application/json.');
  }
  return true;
}

/**
 * The bytes of a JSON body, inflated and limited as they are read, not yet decoded
 * (decodeJsonText does that, where the body is parsed); null when the request has no body
 * (which parses as {}).
 */
export async function readJsonBytes(ctx: Context, limitBytes = MAX_BODY_BYTES): Promise<Buffer | null> {
  if (!hasJsonBody(ctx)) return null;
  try {
    // co-body's text reader; without an encoding it gives the bytes.
    return (await coBody.text(ctx, { limit: limitBytes, encoding: null as unknown as string })) as unknown as Buffer;
  } catch (err) {
    throw bodyError(err, limitBytes);
  }
}

/** A body's bytes as text: UTF-8, a byte order mark dropped; malformed UTF-8 is 400 invalid_json. */
export function decodeJsonText(bytes: Uint8Array): string {
  if (!isUtf8(bytes)) throw invalidUtf8();
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Parses a JSON body's text as every route does: any JSON value, prototype poisoning refused. */
export function parseJsonText(text: string): unknown {
  try {
    return bourne.parse(text, { protoAction: 'error' });
  } catch {
    throw invalidJson();
  }
}

/** Parses JSON bodies into ctx.request.body, except for the requests `readsItself` says read their own. */
export function jsonBody(readsItself: (ctx: Context) => boolean = () => false): Middleware<AppState> {
  return async (ctx, next) => {
    if (readsItself(ctx)) return next();
    const bytes = await readJsonBytes(ctx);
    // No body, or an empty one labelled application/json, reads as {}.
    ctx.request.body = bytes === null || bytes.length === 0 ? {} : parseJsonText(decodeJsonText(bytes));
    return next();
  };
}
