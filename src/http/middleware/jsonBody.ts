// Request bodies are JSON, at most 1 MB (a log batch: see logBodyLimitBytes), read by
// requestBody.ts (gzip, deflate or br inflated within the same bound). A body of
// another content type is refused (415) rather than silently ignored; a request without a
// body parses as {}. A body must be UTF-8: malformed bytes are refused (400 invalid_json),
// never stored as U+FFFD.
//
// Log batches are the exception to parsing here: their route reads the body's bytes
// (readJsonBytes, with the same checks and errors) and decodes and parses them off the event
// loop (src/ingest/intake/batchParsers.ts).
import type { Context, Middleware } from 'koa';
import type { AppState } from '../context.js';
import { HttpError } from '../httpError.js';
import { readBodyBytes } from '../requestBody.js';
import { decodeJsonText, parseJsonText } from '../../validation/jsonText.js';

/** The body limit of every route but the log batch's. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Content-Encodings a JSON body may come in. */
const JSON_ENCODINGS = ['gzip', 'deflate', 'br'] as const;

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
 * (src/validation/jsonText.ts decodes and parses them); null when the request has no body
 * (which parses as {}).
 */
export async function readJsonBytes(ctx: Context, limitBytes = MAX_BODY_BYTES): Promise<Buffer | null> {
  if (!hasJsonBody(ctx)) return null;
  return readBodyBytes(ctx, { wireBytes: limitBytes, inflated: { encodings: JSON_ENCODINGS, maxBytes: limitBytes } });
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
