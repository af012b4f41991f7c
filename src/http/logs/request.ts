import type { Context } from 'koa';

/** The path of the log batch route. */
export const LOG_BATCH_PATH = '/v1.0/logs';
/** The standard formats' routes (http/metrics/routes.ts): log batches in another encoding. */
export const OTLP_METRICS_PATH = '/v1/metrics';
export const REMOTE_WRITE_PATH = '/api/v1/write';
const BATCH_PATHS = new Set([LOG_BATCH_PATH, OTLP_METRICS_PATH, REMOTE_WRITE_PATH]);

/** Whether the request posts a log batch (admitted and read by the route's own means). */
export const isLogBatchRequest = (ctx: Context) => ctx.method === 'POST' && BATCH_PATHS.has(ctx.path);
