import type { Context } from 'koa';

/** The path of the log batch route. */
export const LOG_BATCH_PATH = '/v1.0/logs';

/** Whether the request posts a log batch (admitted and parsed by the logs route's own means). */
export const isLogBatchRequest = (ctx: Context) => ctx.method === 'POST' && ctx.path === LOG_BATCH_PATH;
