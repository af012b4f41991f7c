// Probes and scrapers: no token, no workspace data.
import type { Metrics } from '../../metrics.js';
import type { Stores } from '../../stores/index.js';
import { ApiRouter } from '../apiRouter.js';
import { errorBody } from '../middleware/errorHandler.js';

const checksSchema = {
  type: 'object',
  required: ['clickhouse', 'postgres'],
  properties: {
    clickhouse: { type: 'string', enum: ['ok', 'down', 'none'] },
    postgres: { type: 'string', enum: ['ok', 'down'] },
    journal: { type: 'string', enum: ['ok', 'down'], description: 'Present with JOURNAL_URL: whether JetStream answers.' },
  },
} as const;

/** A shared journal this process depends on (JOURNAL_URL). */
export interface JournalProbe {
  ping(): Promise<void>;
}

export function healthRoutes(stores: Stores, metrics: Metrics, journal: JournalProbe | null = null): ApiRouter {
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
        const withClickHouse = stores.clickhouse.mode !== 'none';
        const [clickhouse, postgres, stream] = await Promise.allSettled([
          withClickHouse ? stores.clickhouse.ping() : null,
          stores.postgres.ping(),
          journal?.ping() ?? null,
        ]);
        const state = (r: PromiseSettledResult<unknown>) => (r.status === 'fulfilled' ? 'ok' : 'down');
        const checks = {
          clickhouse: withClickHouse ? state(clickhouse) : 'none',
          postgres: state(postgres),
          ...(journal ? { journal: state(stream) } : {}),
        };
        const ready = checks.clickhouse !== 'down' && checks.postgres === 'ok' && checks.journal !== 'down';
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
