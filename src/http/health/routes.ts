// Probes and scrapers: no token, no workspace data.
import type { Metrics } from '../../metrics.js';
import type { Stores } from '../../stores/index.js';
import { ApiRouter } from '../apiRouter.js';
import { errorBody } from '../middleware/errorHandler.js';

const checksSchema = {
  type: 'object',
  required: ['clickhouse', 'postgres'],
  properties: { clickhouse: { type: 'string', enum: ['ok', 'down'] }, postgres: { type: 'string', enum: ['ok', 'down'] } },
} as const;

export function healthRoutes(stores: Stores, metrics: Metrics): ApiRouter {
  return new ApiRouter('health', '')
    .add(
      {
        method: 'get',
        path: '/healthz',
        auth: 'none',
        summary: 'Liveness',
        responses: { 200: { description: 'The process answers.', schema: { type: 'object', properties: { status: { const: 'ok' } } } } },
      },
      (ctx) => {
        ctx.body = { status: 'ok' };
      },
    )
    .add(
      {
        method: 'get',
        path: '/readyz',
        auth: 'none',
        summary: 'Readiness: both stores answer',
        responses: {
          200: { description: 'Ready.', schema: { type: 'object', properties: { status: { const: 'ok' }, checks: checksSchema } } },
          503: { description: 'A store does not answer (not_ready); the error body also carries `checks`.' },
        },
      },
      async (ctx) => {
        const [clickhouse, postgres] = await Promise.allSettled([stores.clickhouse.ping(), stores.postgres.ping()]);
        const checks = { clickhouse: clickhouse.status === 'fulfilled' ? 'ok' : 'down', postgres: postgres.status === 'fulfilled' ? 'ok' : 'down' };
        const ready = checks.clickhouse === 'ok' && checks.postgres === 'ok';
        ctx.status = ready ? 200 : 503;
        ctx.body = ready ? { status: 'ok', checks } : { ...errorBody('not_ready', 'A store does not answer.'), checks };
      },
    )
    .add(
      {
        method: 'get',
        path: '/metrics',
        auth: 'none',
        summary: 'Prometheus metrics',
        responses: { 200: { description: 'Prometheus text exposition format.', contentType: 'text/plain', schema: { type: 'string' } } },
      },
      async (ctx) => {
        ctx.type = metrics.registry.contentType;
        ctx.body = await metrics.registry.metrics();
      },
    );
}
