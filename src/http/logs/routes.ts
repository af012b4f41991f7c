import type { Intake } from '../../ingest/intake/intake.js';
import { logBatchSchema, logBodyLimitBytes } from '../../ingest/intake/recordRules.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { admissionOf, setRateHeaders } from './admission.js';
import { readJsonBytes } from '../middleware/jsonBody.js';
import { LOG_BATCH_PATH } from './request.js';

/**
 * POST /v1.0/logs: 200 with an empty body once every record of the batch is durable (in the
 * journal, fsynced); it reaches ClickHouse and the rollups within seconds.
 * The records are read, validated and journaled by ingest's intake (src/ingest/intake/).
 * @param intake null where this process does not ingest (the router is then only documented).
 */
export function logRoutes(intake: Intake | null, maxBatchRecords: number): ApiRouter {
  const bodyLimit = logBodyLimitBytes(maxBatchRecords);
  return new ApiRouter('logs', '').add(
    {
      method: 'post',
      path: LOG_BATCH_PATH,
      summary: 'Store a batch of log records',
      description:
        `At most ${maxBatchRecords} records, and ${Math.round(bodyLimit / 1024)} KB of body (413 beyond). All or nothing: one bad record refuses the batch, every problem listed by index. ` +
        'A record whose log_id was accepted in the last 10 minutes is acknowledged again and not stored twice. ' +
        "A 200 means durable: the records are in the service's fsynced journal (or already in ClickHouse), and visible in rollups within 2 s. " +
        'Responses carry X-RateLimit-Limit / -Remaining / -Reset (records per second, records, seconds) when the workspace has a rate.',
      // Checked record by record by validateLogBatch, with this schema and the rules it cannot say.
      handlerValidatedBody: logBatchSchema(maxBatchRecords),
      responses: {
        200: { description: 'Every record is durable (empty body).' },
        400: { description: 'The batch was refused; nothing of it was stored.' },
        413: { description: 'The body is larger than the limit above; nothing of it was stored.' },
        429: {
          description: 'The workspace is over its rate or its share of the service; nothing of it was stored. Retry the same batch after Retry-After seconds.',
        },
        503: { description: 'The journal is full, or storage is unavailable; nothing of it was stored. Retry after Retry-After seconds.' },
      },
    },
    async (ctx) => {
      if (intake === null) throw new Error('POST /v1.0/logs is mounted only in a process that ingests');
      const receivedAt = Date.now();
      const body = await readJsonBytes(ctx, bodyLimit);
      const admission = admissionOf(ctx);
      await intake.logBatch(workspaceOf(ctx), body, receivedAt, (records) => {
        if (admission) setRateHeaders(ctx, admission.debit(records));
      });
      ctx.status = 200;
      ctx.body = '';
    },
  );
}
