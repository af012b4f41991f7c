// Gives each request an id (X-Request-Id, taken from the client when it is sane), writes one
// access-log line per request and counts it. Query strings and headers are not logged.
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../metrics.js';
import type { AppState } from '../context.js';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestContext(logger: Logger, metrics: Metrics): Middleware<AppState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const incoming = ctx.get('X-Request-Id');
    ctx.state.requestId = SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    try {
      await next();
    } finally {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      metrics.httpRequests.inc({ method: ctx.method, route: String(route), status: String(ctx.status) });
      // Checked first: below the level, winston would still build the line and pass it down its stream.
      if (logger.isInfoEnabled())
        logger.info('request', {
          request_id: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          duration_ms: Math.round(durationMs * 10) / 10,
          ...(ctx.state.workspaceId === undefined ? {} : { workspace_id: ctx.state.workspaceId }),
        });
    }
  };
}
