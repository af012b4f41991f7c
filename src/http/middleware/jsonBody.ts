// Request bodies are JSON, at most 1 MB. A body of another content type is refused (415)
// rather than silently ignored; a request without a body parses as {}.
//
// Log batches are the exception to parsing here: their route reads the body's bytes
// (readJsonBytes, with the same checks and errors) and decodes and parses them off the event
// loop (http/logs/batchParsers.ts).
import coBody from 'co-body';
import type { Context, Middleware } from 'koa';
import bodyParser from 'koa-bodyparser';
import type { AppState } from '../context.js';
import { HttpError } from '../httpError.js';

export const MAX_BODY = '1mb';

/** The error a client is shown for a body that could not be read or parsed. */
function bodyError(err: unknown): HttpError {
  const status = (err as { status?: number }).status;
  if (status === 413) return new HttpError(413, 'payload_too_large', 'The request body is larger than 1 MB.');
  if (status === 415) return new HttpError(415, 'unsupported_media_type', 'The request body encoding is not supported.');
  return invalidJson();
}

export const invalidJson = () => new HttpError(400, 'invalid_json', 'The request body is not valid JSON.');

/** Whether the request carries a body; a JSON one, or it is refused with 415. */
function hasJsonBody(ctx: Context): boolean {
  if (!(ctx.request.length > 0 || ctx.get('Transfer-Encoding') !== '')) return false;
  if (ctx.request.is('json', '+json') === false) {
    throw new HttpError(415, 'unsupported_media_type', 'Send the body as Content-Type: application/json.');
  }
  return true;
}

/**
 * The bytes of a JSON body, inflated and limited as the parser reads them, not yet decoded
 * (decodeJsonText does that, where the body is parsed); null when the request has no body
 * (which parses as {}).
 */
export async function readJsonBytes(ctx: Context): Promise<Buffer | null> {
  if (!hasJsonBody(ctx)) return null;
  try {
    // co-body's text reader, which the JSON parser uses too; without an encoding it gives the bytes.
    return (await coBody.text(ctx, { limit: MAX_BODY, encoding: null as unknown as string })) as unknown as Buffer;
  } catch (err) {
    throw bodyError(err);
  }
}

/** A body's bytes as the JSON parser reads them: UTF-8, a byte order mark dropped, malformed bytes as U+FFFD. */
export function decodeJsonText(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Parses JSON bodies into ctx.request.body, except for the requests `readsItself` says read their own. */
export function jsonBody(readsItself: (ctx: Context) => boolean = () => false): Middleware<AppState> {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: MAX_BODY,
    strict: false,
    onerror(err) {
      throw bodyError(err);
    },
  });
  return async (ctx, next) => {
    if (readsItself(ctx)) return next();
    if (!hasJsonBody(ctx)) {
      // Also when the empty body is labelled application/json, which the parser would not read as {}.
      ctx.request.body = {};
      return next();
    }
    await parse(ctx, next);
  };
}
