// Probes and scrapers: no token, no workspace data.
import Router from '@koa/router';
import { HttpError } from '../httpError.js';
import type { Metrics } from '../../metrics.js';
import type { Stores } from '../../stores/index.js';
import type { AppState } from '../context.js';

export function healthRoutes(stores: Stores, metrics: Metrics): Router<AppState> {
  const router = new Router<AppState>();

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', async (ctx) => {
    const [clickhouse, postgres] = await Promise.allSettled([stores.clickhouse.ping(), stores.postgres.ping()]);
    const checks = { clickhouse: clickhouse.status === 'fulfilled' ? 'ok' : 'down', postgres: postgres.status === 'fulfilled' ? 'ok' : 'down' };
    const ready = checks.clickhouse === 'ok' && checks.postgres === 'ok';
    ctx.status = ready ? 200 : 503;
    ctx.body = ready
      ? { status: 'ok', checks }
      : { error: { code: 'not_ready', message: 'A store does not answer.', details: [] }, checks };
  });

  router.get('/metrics', async (ctx) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });

  // Answered here, before authentication: a probe path never asks for a token.
  router.all(['/healthz', '/readyz', '/metrics'], () => {
    throw new HttpError(405, 'method_not_allowed', 'Use GET.', [], { Allow: 'GET, HEAD' });
  });

  return router;
}
