import type { LogIngestor } from '../../ingest/logIngestor.js';
import type { NewLogRecord } from '../../ingest/logWriter.js';
import type { Metrics } from '../../metrics.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { logBatchSchema, MAX_LOGS_PER_REQUEST } from './schema.js';
import { validateLogBatch } from './validateLogBatch.js';

/**
 * POST /v1.0/logs: 200 with an empty body once every record of the batch is stored.
 * @param ingestor null where this process does not ingest (the router is then only documented).
 */
export function logRoutes(ingestor: LogIngestor | null, metrics: Metrics): ApiRouter {
  return new ApiRouter('logs', '').add(
    {
      method: 'post',
      path: '/v1.0/logs',
      summary: 'Store a batch of log records',
      description:
        `At most ${MAX_LOGS_PER_REQUEST} records. All or nothing: one bad record refuses the batch, every problem listed by index. ` +
        'A record whose log_id was accepted in the last 10 minutes is acknowledged again and not stored twice.',
      // Checked record by record by validateLogBatch, with this schema and the rules it cannot say.
      handlerValidatedBody: logBatchSchema,
      responses: {
        200: { description: 'Every record is stored (empty body).' },
        400: { description: 'The batch was refused; nothing of it was stored.' },
        503: { description: 'Overloaded or storage unavailable; nothing of it was stored. Retry after Retry-After seconds.' },
      },
    },
    async (ctx) => {
      if (ingestor === null) throw new Error('POST /v1.0/logs is mounted only in a process that ingests');
      const receivedAt = Date.now();
      const body: unknown = ctx.request.body;
      let records: NewLogRecord[];
      try {
        records = validateLogBatch(body, receivedAt);
      } catch (err) {
        metrics.rejectedRecords.inc({ reason: 'invalid' }, Array.isArray(body) ? body.length : 0);
        throw err;
      }
      await ingestor.ingest(workspaceOf(ctx), records, receivedAt);
      ctx.status = 200;
      ctx.body = '';
    },
  );
}
