// Idempotency-Key on the POSTs that create a resource (createsResource; docs/api.md, Safe retries): the
// first request with a key runs and its successful answer is kept for 24 hours; a retry with
// the same key and the same request gets that answer again (same status and body, header
// Idempotent-Replayed: true) and creates nothing; the same key with another path or body is
// 422 idempotency_key_reused. Runs after authentication and body parsing, so a request
// refused before its route runs claims no key. On other routes the header is ignored.
import type { Middleware } from 'koa';
import { claimIdempotencyKey, keepAnswer, releaseIdempotencyKey, requestHashOf } from '../../idempotency/operations.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../../idempotency/model.js';
import type { Logger } from '../../logger.js';
import type { PostgresStore } from '../../stores/postgres.js';
import type { ApiRouter } from '../apiRouter.js';
import { workspaceOf, type AppState } from '../context.js';
import { HttpError, retryAfterHeaders } from '../httpError.js';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

export function idempotentCreates(postgres: PostgresStore, routers: readonly ApiRouter[], logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const key = ctx.headers['idempotency-key'];
    if (ctx.method !== 'POST' || key === undefined || !routers.some((r) => r.createsAt(ctx.path))) return next();
    if (typeof key !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new HttpError(400, 'invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 printable ASCII characters, sent once.', [
        { path: '/headers/idempotency-key', message: 'must be 1 to 255 printable ASCII characters' },
      ]);
    }
    const workspaceId = workspaceOf(ctx);
    const requestHash = requestHashOf(ctx.method, ctx.path, JSON.stringify(ctx.request.body ?? {}));
    const claim = await claimIdempotencyKey(postgres, workspaceId, key, requestHash);
    switch (claim.outcome) {
      case 'replay':
        ctx.status = claim.answer.status;
        ctx.type = 'application/json; charset=utf-8';
        ctx.set('Idempotent-Replayed', 'true');
        ctx.body = claim.answer.body;
        return;
      case 'reused':
        throw new HttpError(
          422,
          'idempotency_key_reused',
          'This Idempotency-Key was used for another request (another path or body) in the last 24 hours; use a new key for a new request.',
        );
      case 'busy':
        throw new HttpError(
          409,
          'idempotency_key_in_use',
          'A request with this Idempotency-Key is still being answered; retry it shortly.',
          [],
          retryAfterHeaders(1),
        );
      case 'claimed':
        break;
    }
    let kept = false;
    try {
      await next();
      if (ctx.status >= 200 && ctx.status < 300) {
        await keepAnswer(postgres, workspaceId, key, requestHash, ctx.status, JSON.stringify(ctx.body));
        kept = true;
      }
    } finally {
      if (!kept) {
        await releaseIdempotencyKey(postgres, workspaceId, key, requestHash).catch((err: unknown) =>
          logger.warn('an idempotency key could not be freed; it is taken over after a minute', { err }),
        );
      }
    }
  };
}
