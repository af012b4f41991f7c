// POST /v1/metrics (OTLP/HTTP) and POST /api/v1/write (Prometheus remote-write 1.0): each data
// point or sample becomes a log record and takes the path of POST /v1.0/logs from there on:
// the same admission (by the records a request carries), event definitions made on first
// sight, the idempotency window (log_ids derived from series and time), the journal.
import type { Context } from 'koa';
import { CumulativeSeries } from '../../ingest/cumulativeSeries.js';
import { prepareBatch } from '../../ingest/journaledBatch.js';
import type { Ingestor } from '../../ingest/ingestor.js';
import type { Metrics } from '../../metrics.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { HttpError } from '../httpError.js';
import { admissionOf } from '../logs/admission.js';
import { decodeJsonText, parseJsonText } from '../middleware/jsonBody.js';
import { OTLP_METRICS_PATH, REMOTE_WRITE_PATH } from '../logs/request.js';
import { gunzipped, unsnappied, wireBytes } from './body.js';
import { DECODE_OPTIONS, ExportMetricsServiceRequest, ExportMetricsServiceResponse, RpcStatus, WriteRequest } from './otlpProto.js';
import { type MetricsRequest, otlpRecords } from './otlp.js';
import type { PointMapping } from './pointRecords.js';
import { remoteWriteRecords, type WriteRequestMessage } from './remoteWrite.js';

/** Cumulative series remembered per process for increases (src/ingest/cumulativeSeries.ts). */
const MAX_CUMULATIVE_SERIES = 1_000_000;
/** gRPC's INVALID_ARGUMENT, the code of a google.rpc.Status for a malformed request. */
const INVALID_ARGUMENT = 3;
const PROTOBUF = 'application/x-protobuf';

type Encoding = 'protobuf' | 'json';

function encodingOf(ctx: Context): Encoding {
  if (ctx.request.is(PROTOBUF)) return 'protobuf';
  if (ctx.request.is('json')) return 'json';
  throw new HttpError(415, 'unsupported_media_type', `Send the body as Content-Type: ${PROTOBUF} or application/json.`);
}

const malformed = (what: string) => new HttpError(400, 'malformed_body', `The request body is not a valid ${what}; nothing of it was stored.`);

function decodeOtlp(bytes: Buffer, encoding: Encoding): MetricsRequest {
  // JSON is read as on every route: UTF-8 only and valid JSON (else 400 invalid_json), prototype poisoning refused.
  const json = encoding === 'json' ? parseJsonText(decodeJsonText(bytes)) : null;
  try {
    if (encoding === 'protobuf') return ExportMetricsServiceRequest.toObject(ExportMetricsServiceRequest.decode(bytes), DECODE_OPTIONS) as MetricsRequest;
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error('not an object');
    // fromObject, not verify: OTLP/JSON sends 64-bit integers as strings, which verify refuses.
    return ExportMetricsServiceRequest.toObject(ExportMetricsServiceRequest.fromObject(json), DECODE_OPTIONS) as MetricsRequest;
  } catch {
    throw malformed('ExportMetricsServiceRequest');
  }
}

/** Journals the records of a request (nothing when it has none), then remembers its cumulative series: only once they are durable. */
async function ingestPoints(ctx: Context, ingestor: Ingestor, cumulative: CumulativeSeries, { outcome, seen }: PointMapping, metrics: Metrics): Promise<void> {
  const receivedAt = Date.now();
  const workspaceId = workspaceOf(ctx);
  if (outcome.refusedPoints > 0) metrics.rejectedRecords.inc({ reason: 'invalid' }, outcome.refusedPoints);
  if (outcome.records.length > 0) {
    const batch = prepareBatch(workspaceId, receivedAt, outcome.records);
    admissionOf(ctx)?.debit(batch.records);
    await ingestor.ingest(batch);
  }
  cumulative.commit(workspaceId, seen);
}

/** The routes; `ingestor` null where this process does not ingest (then only documented). */
export function metricRoutes(ingestor: Ingestor | null, metrics: Metrics): ApiRouter {
  const cumulative = new CumulativeSeries(MAX_CUMULATIVE_SERIES);
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
        413: { description: 'Body over 4 MB, or over 16 MB once inflated.' },
        415: { description: 'Neither protobuf nor JSON, or an unknown Content-Encoding.' },
        429: { description: 'Over the workspace rate or share; nothing was stored. Retry after Retry-After seconds.' },
        503: { description: 'The journal is full or storage unavailable; nothing was stored. Retry after Retry-After seconds.' },
      },
    },
    async (ctx) => {
      if (ingestor === null) throw new Error('POST /v1/metrics is mounted only in a process that ingests');
      const encoding = encodingOf(ctx);
      try {
        const request = decodeOtlp(gunzipped(ctx, await wireBytes(ctx)), encoding);
        const mapping = otlpRecords(request, workspaceOf(ctx), cumulative, Date.now());
        await ingestPoints(ctx, ingestor, cumulative, mapping, metrics);
        const { outcome } = mapping;
        const message = outcome.message();
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
        413: { description: 'Body over 4 MB, or over 16 MB once inflated.' },
        415: { description: 'Not application/x-protobuf.' },
        429: { description: 'Over the workspace rate or share; nothing was stored. Prometheus retries.' },
        503: { description: 'The journal is full or storage unavailable; nothing was stored. Prometheus retries.' },
      },
    },
    async (ctx) => {
      if (ingestor === null) throw new Error('POST /api/v1/write is mounted only in a process that ingests');
      if (!ctx.request.is(PROTOBUF)) throw new HttpError(415, 'unsupported_media_type', `Send the body as Content-Type: ${PROTOBUF} (snappy).`);
      const bytes = unsnappied(await wireBytes(ctx));
      let request: WriteRequestMessage;
      try {
        request = WriteRequest.toObject(WriteRequest.decode(bytes), DECODE_OPTIONS) as WriteRequestMessage;
      } catch {
        throw malformed('WriteRequest');
      }
      await ingestPoints(ctx, ingestor, cumulative, remoteWriteRecords(request, workspaceOf(ctx), cumulative, Date.now()), metrics);
      ctx.status = 204;
    },
  );
  return router;
}
