// Applies admission control (src/ingest/admission.ts) to POST /v1.0/logs before the body is
// read: a refused request is answered 429 at once, with Retry-After and X-RateLimit-*.
import type { Middleware } from 'koa';
import { busy } from '../../errors.js';
import type { Admission, Admitted, RateLimitHeaders } from '../../ingest/admission.js';
import type { AppState } from '../context.js';
import { workspaceOf } from '../context.js';
import { isLogBatchRequest } from './request.js';

const admissions = new WeakMap<object, Admitted>();

/** The admission of this request, for the route to debit its records. */
export function admissionOf(ctx: object): Admitted | null {
  return admissions.get(ctx) ?? null;
}

/** X-RateLimit-*: Remaining is the records left once the answered batch is charged. */
export function setRateHeaders(ctx: Parameters<Middleware<AppState>>[0], headers: RateLimitHeaders | null): void {
  if (headers === null) return;
  ctx.set('X-RateLimit-Limit', String(headers.limit));
  ctx.set('X-RateLimit-Remaining', String(headers.remaining));
  ctx.set('X-RateLimit-Reset', String(headers.reset));
}

export function admitLogs(admission: Admission): Middleware<AppState> {
  return async (ctx, next) => {
    if (!isLogBatchRequest(ctx)) return next();
    const decision = admission.enter(workspaceOf(ctx));
    setRateHeaders(ctx, decision.headers);
    if (!decision.admitted) {
      const message =
        decision.reason === 'rate'
          ? 'The workspace is sending logs faster than its rate; nothing of this batch was stored. Retry it (same log_ids) after Retry-After seconds.'
          : decision.reason === 'backlog'
            ? 'The ingest journal is more than half full and this workspace sends the most of it; nothing of this batch was stored. Retry it after Retry-After seconds.'
            : 'The workspace has as many log requests in flight as its share allows; nothing of this batch was stored. Retry it after Retry-After seconds.';
      throw busy('rate_limited', message, decision.retryAfterS);
    }
    admissions.set(ctx, decision);
    try {
      await next();
    } finally {
      decision.leave();
    }
  };
}
