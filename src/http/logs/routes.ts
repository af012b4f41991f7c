import Router from '@koa/router';
import type { LogIngestor } from '../../ingest/logIngestor.js';
import type { Metrics } from '../../metrics.js';
import { workspaceOf, type AppState } from '../context.js';
import { validateLogBatch } from './validateLogBatch.js';

/** POST /v1.0/logs: 200 with an empty body once every record of the batch is stored. */
export function logRoutes(ingestor: LogIngestor, metrics: Metrics): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/v1.0/logs', async (ctx) => {
    const receivedAt = Date.now();
    const body: unknown = ctx.request.body;
    let records;
    try {
      records = validateLogBatch(body, receivedAt);
    } catch (err) {
      metrics.rejectedRecords.inc({ reason: 'invalid' }, Array.isArray(body) ? body.length : 0);
      throw err;
    }
    await ingestor.ingest(workspaceOf(ctx), records, receivedAt);
    ctx.status = 200;
    ctx.body = '';
  });
  return router;
}
