import type { Ingestor } from '../../ingest/ingestor.js';
import type { Metrics } from '../../metrics.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { admissionOf, setRateHeaders } from './admission.js';
import { readJsonBytes } from '../middleware/jsonBody.js';
import { BatchRefused, parseLogBatch } from './batchParsers.js';
import { LOG_BATCH_PATH } from './request.js';
import { logBatchSchema, logBodyLimitBytes } from './schemas.js';

/**
 * POST /v1.0/logs: 200 with an empty body once every record of the batch is durable (in the
 * journal, fsynced); it reaches ClickHouse and the rollups within seconds.
 * @param ingestor null where this process does not ingest (the router is then only documented).
 */
export function logRoutes(ingestor: Ingestor | null, metrics: Metrics, maxBatchRecords: number): ApiRouter {
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
      if (ingestor === null) throw new Error('POST /v1.0/logs is mounted only in a process that ingests');
      const receivedAt = Date.now();
      const body = await readJsonBytes(ctx, bodyLimit);
      const workspaceId = workspaceOf(ctx);
      const batch = await parseLogBatch(body, workspaceId, receivedAt, maxBatchRecords).catch((err: unknown) => {
        if (!(err instanceof BatchRefused)) throw err;
        metrics.rejectedRecords.inc({ reason: 'invalid' }, err.recordCount);
        throw err.error;
      });
      const admission = admissionOf(ctx);
      if (admission) setRateHeaders(ctx, admission.debit(batch.records));
      await ingestor.ingest(batch);
      ctx.status = 200;
      ctx.body = '';
    },
  );
}
