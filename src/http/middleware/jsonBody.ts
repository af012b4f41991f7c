// Request bodies are JSON, at most 1 MB. A body of another content type is refused (415)
// rather than silently ignored; a request without a body parses as {}.
import bodyParser from 'koa-bodyparser';
import type { Middleware } from 'koa';
import { HttpError } from '../httpError.js';
import type { AppState } from '../context.js';

export const MAX_BODY = '1mb';

export function jsonBody(): Middleware<AppState> {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: MAX_BODY,
    strict: false,
    onerror(err) {
      const status = (err as { status?: number }).status;
      if (status === 413) throw new HttpError(413, 'payload_too_large', 'The request body is larger than 1 MB.');
      if (status === 415) throw new HttpError(415, 'unsupported_media_type', 'The request body encoding is not supported.');
      throw new HttpError(400, 'invalid_json', 'The request body is not valid JSON.');
    },
  });
  return async (ctx, next) => {
    const hasBody = ctx.request.length > 0 || ctx.get('Transfer-Encoding') !== '';
    if (!hasBody) {
      // Also when the empty body is labelled application/json, which the parser would not read as {}.
      ctx.request.body = {};
      return next();
    }
    if (ctx.request.is('json', '+json') === false) {
      throw new HttpError(415, 'unsupported_media_type', 'Send the body as Content-Type: application/json.');
    }
    await parse(ctx, next);
  };
}
