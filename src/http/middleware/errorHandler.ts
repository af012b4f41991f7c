// The one place that renders errors: every status >= 400 leaves as
// {"error": {"code", "message", "details"}, "message"}; internals of a 500 go to the log only.
// The top-level `message` repeats error.message: the JavaScript SDK shows only that.
// Domain errors (AppError) get their status here, from their kind.
import type { Middleware } from 'koa';
import { AppError, type ErrorDetail, type ErrorKind } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { AppState } from '../context.js';
import { HttpError, retryAfterHeaders } from '../httpError.js';

const STATUS_BY_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  upstream_failed: 502,
  unavailable: 503,
  busy: 429,
  too_large: 413,
};

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

/** The HTTP shape of an error a client may see; null for anything else (a 500). */
export function toHttpError(err: unknown): HttpError | null {
  if (err instanceof HttpError) return err;
  if (err instanceof AppError) {
    const { retryAfterSeconds, extra } = err.options;
    const headers = retryAfterSeconds === undefined ? {} : retryAfterHeaders(retryAfterSeconds);
    return new HttpError(STATUS_BY_KIND[err.kind], err.code, err.message, err.details, headers, extra);
  }
  // Client errors thrown by Koa or its router (405, 501 …).
  const e = (typeof err === 'object' && err !== null ? err : {}) as LibraryError;
  const status = e.status ?? e.statusCode;
  if (status !== undefined && status >= 400 && status < 500 && e.expose !== false) {
    return new HttpError(status, CODES_BY_STATUS[status] ?? 'bad_request', e.message ?? 'Bad request.');
  }
  return null;
}

/** The error body (docs/api.md, Bodies and errors), for every status >= 400. */
export function errorBody(code: string, message: string, details: readonly ErrorDetail[] = [], extra: Readonly<Record<string, unknown>> = {}) {
  return { error: { code, message, details }, message, ...extra };
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
      ctx.body = errorBody(httpError.code, httpError.message, httpError.details, httpError.extra);
    }
  };
}
