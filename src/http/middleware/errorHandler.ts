// The one place that renders errors: every status >= 400 leaves as
// {"error": {"code", "message", "details"}}; internals of a 500 go to the log only.
import type { Middleware } from 'koa';
import { HttpError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { AppState } from '../context.js';

const CODES_BY_STATUS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable_entity',
  429: 'too_many_requests',
  501: 'not_implemented',
  503: 'service_unavailable',
};

interface LibraryError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
}

/** Turns client errors thrown by Koa or its router into HttpErrors; anything else is a 500 (null). */
export function toHttpError(err: unknown): HttpError | null {
  if (err instanceof HttpError) return err;
  const e = (typeof err === 'object' && err !== null ? err : {}) as LibraryError;
  const status = e.status ?? e.statusCode;
  if (status !== undefined && status >= 400 && status < 500 && e.expose !== false) {
    return new HttpError(status, CODES_BY_STATUS[status] ?? 'bad_request', e.message ?? 'Bad request.');
  }
  return null;
}

export function errorHandler(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new HttpError(404, 'not_found', 'No such route.');
    } catch (err) {
      let httpError = toHttpError(err);
      if (httpError === null) {
        logger.error('unhandled error', { request_id: ctx.state.requestId, path: ctx.path, err });
        httpError = new HttpError(500, 'internal_error', 'Internal server error.');
      }
      ctx.status = httpError.status;
      ctx.set(httpError.headers as Record<string, string>);
      ctx.body = {
        error: { code: httpError.code, message: httpError.message, details: httpError.details },
        ...httpError.extra,
      };
    }
  };
}
