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
    writer: {
      type: 'string',
      enum: ['ok', 'stalled'],
      description:
        'Present where the process runs a journal writer: stalled once it has moved nothing into ClickHouse for INGEST_WRITER_STALL_S while records wait.',
    },
  },
} as const;

/** A shared journal this process depends on (JOURNAL_URL). */
export interface JournalProbe {
  ping(): Promise<void>;
}

/** The journal writer of this process, if it runs one, and the bound of its stall. */
export interface WriterProbe {
  writerStalledMs(now: number): number | null;
}

export function healthRoutes(
  stores: Stores,
  metrics: Metrics,
  journal: JournalProbe | null = null,
  writer: { probe: WriterProbe; stallMs: number } | null = null,
): ApiRouter {
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
        summary: 'Readiness: both stores answer, and the journal writer moves',
        responses: {
          200: { description: 'Ready.', schema: { type: 'object', properties: { status: { const: 'ok' }, checks: checksSchema } } },
          503: { description: 'A store does not answer, or the journal writer has stalled (not_ready); the error body also carries `checks`.' },
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
        const stalledMs = writer?.probe.writerStalledMs(Date.now()) ?? null;
        const writerCheck = stalledMs === null || writer === null ? {} : { writer: stalledMs >= writer.stallMs ? 'stalled' : 'ok' };
        const storesReady = checks.clickhouse !== 'down' && checks.postgres === 'ok' && checks.journal !== 'down';
        const ready = storesReady && writerCheck.writer !== 'stalled';
        const all = { ...checks, ...writerCheck };
        const why = storesReady
          ? `The journal writer has moved nothing into ClickHouse for ${Math.round((stalledMs ?? 0) / 1000)} s while records wait.`
          : 'A store does not answer.';
        ctx.status = ready ? 200 : 503;
        ctx.body = ready ? { status: 'ok', checks: all } : { ...errorBody('not_ready', why), checks: all };
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
