// POST /v1/metrics (OTLP/HTTP) and POST /api/v1/write (Prometheus remote-write 1.0): each data
// point or sample becomes a log record and takes the path of POST /v1.0/logs from there on:
// the same admission (by the records a request carries), event definitions made on first
// sight, the idempotency window (log_ids derived from series and time), the journal.
import type { Context } from 'koa';
import type { Intake } from '../../ingest/intake/intake.js';
import { ExportMetricsServiceResponse, RpcStatus } from '../../ingest/intake/otlpProto.js';
import type { PointEncoding, PointJob } from '../../ingest/intake/pointRequest.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { HttpError } from '../httpError.js';
import { admissionOf } from '../logs/admission.js';
import { OTLP_METRICS_PATH, REMOTE_WRITE_PATH } from '../logs/request.js';
import { toHttpError } from '../middleware/errorHandler.js';
import { otlpBody, remoteWriteBody } from './body.js';

/** gRPC's INVALID_ARGUMENT, the code of a google.rpc.Status for a malformed request. */
const INVALID_ARGUMENT = 3;
const PROTOBUF = 'application/x-protobuf';

function encodingOf(ctx: Context): PointEncoding {
  if (ctx.request.is(PROTOBUF)) return 'protobuf';
  if (ctx.request.is('json')) return 'json';
  throw new HttpError(415, 'unsupported_media_type', `Send the body as Content-Type: ${PROTOBUF} or application/json.`);
}

/**
 * Has the intake map, journal and remember the request's points (src/ingest/intake/intake.ts);
 * a refusal of the whole request becomes its HTTP error here. Returns what was refused, for partial_success.
 */
async function ingestPoints(ctx: Context, intake: Intake, request: { kind: PointJob['kind']; body: Uint8Array; encoding: PointEncoding }) {
  const admission = admissionOf(ctx);
  const outcome = await intake.points(workspaceOf(ctx), request, Date.now(), (records) => admission?.debit(records));
  if ('refused' in outcome) throw toHttpError(outcome.refused)!;
  return outcome;
}

/** The routes; `intake` null where this process does not ingest (then only documented). */
export function metricRoutes(intake: Intake | null): ApiRouter {
  const router = new ApiRouter('metrics', '');
  router.add(
    {
      method: 'post',
      path: OTLP_METRICS_PATH,
      summary: 'Store OpenTelemetry metrics (OTLP/HTTP)',
      description:
        'An ExportMetricsServiceRequest, `application/x-protobuf` or `application/json`, optionally `Content-Encoding: gzip`. ' +
        'Each data point becomes a log record (docs/ingest-standards.md): agent = service.name[/service.instance.id], event = the metric name. ' +
        'Points refused for the rules of /v1.0/logs are reported in `partial_success`; retried points (same series and time) are stored once.',
      handlerValidatedBody: { type: 'object', description: 'ExportMetricsServiceRequest (OTLP/JSON), or its protobuf encoding.' },
      responses: {
        200: { description: 'An ExportMetricsServiceResponse in the request encoding; `partial_success` when points were refused.' },
        400: { description: 'Malformed payload (a google.rpc.Status for protobuf); nothing was stored.' },
        413: { description: 'Body over 4 MB, or over 16 MB once inflated, or more data points than INGEST_MAX_POINTS; nothing was stored.' },
        415: { description: 'Neither protobuf nor JSON, or an unknown Content-Encoding.' },
        429: { description: 'Over the workspace rate or share; nothing was stored. Retry after Retry-After seconds.' },
        503: { description: 'The journal is full or storage unavailable; nothing was stored. Retry after Retry-After seconds.' },
      },
    },
    async (ctx) => {
      if (intake === null) throw new Error('POST /v1/metrics is mounted only in a process that ingests');
      const encoding = encodingOf(ctx);
      try {
        const outcome = await ingestPoints(ctx, intake, { kind: 'otlp', body: await otlpBody(ctx), encoding });
        const { message } = outcome;
        const partial = message === '' ? {} : { partialSuccess: { rejectedDataPoints: outcome.refusedPoints, errorMessage: message } };
        ctx.status = 200;
        if (encoding === 'json') {
          ctx.body = message === '' ? {} : { partialSuccess: { rejectedDataPoints: String(outcome.refusedPoints), errorMessage: message } };
        } else {
          ctx.type = PROTOBUF;
          ctx.body = Buffer.from(ExportMetricsServiceResponse.encode(ExportMetricsServiceResponse.fromObject(partial)).finish());
        }
      } catch (err) {
        // OTLP's answer to a bad protobuf request is a google.rpc.Status in protobuf.
        if (encoding !== 'protobuf' || !(err instanceof HttpError) || err.status >= 500 || err.status === 429) throw err;
        ctx.status = err.status;
        ctx.type = PROTOBUF;
        ctx.body = Buffer.from(RpcStatus.encode(RpcStatus.fromObject({ code: INVALID_ARGUMENT, message: err.message })).finish());
      }
    },
  );
  router.add(
    {
      method: 'post',
      path: REMOTE_WRITE_PATH,
      summary: 'Store Prometheus samples (remote-write 1.0)',
      description:
        'A snappy-compressed protobuf WriteRequest (`Content-Type: application/x-protobuf`, `Content-Encoding: snappy`). ' +
        'Each sample becomes a log record: agent = job[/instance], event = __name__; counters are stored as increases, `_bucket` series not at all (docs/ingest-standards.md).',
      handlerValidatedBody: { type: 'object', description: 'WriteRequest, protobuf, snappy block format.' },
      responses: {
        204: { description: 'Stored (samples refused for the rules of /v1.0/logs are counted in alertmon_rejected_records_total).' },
        400: { description: 'Malformed body; nothing was stored. Prometheus does not retry it.' },
        413: { description: 'Body over 4 MB, or over 16 MB once inflated, or more samples than INGEST_MAX_POINTS; nothing was stored.' },
        415: { description: 'Not application/x-protobuf.' },
        429: { description: 'Over the workspace rate or share; nothing was stored. Prometheus retries.' },
        503: { description: 'The journal is full or storage unavailable; nothing was stored. Prometheus retries.' },
      },
    },
    async (ctx) => {
      if (intake === null) throw new Error('POST /api/v1/write is mounted only in a process that ingests');
      if (!ctx.request.is(PROTOBUF)) throw new HttpError(415, 'unsupported_media_type', `Send the body as Content-Type: ${PROTOBUF} (snappy).`);
      await ingestPoints(ctx, intake, { kind: 'remote-write', body: await remoteWriteBody(ctx), encoding: 'protobuf' });
      ctx.status = 204;
    },
  );
  return router;
}
