// Ingest's front door: every wire format's request, as the HTTP layer read its bytes, becomes
// log records here and goes to the journal (the Ingestor). A JSON log batch is parsed and
// validated in a parser thread (batchParsers.ts, validateLogBatch.ts); an OTLP or remote-write
// request is decoded, counted and mapped there (pointRequest.ts), its metrics' keys declared
// on first sight, and its cumulative series remembered once its records are durable. The
// routes (src/http/logs, src/http/metrics) only read the body, call this and answer.
import { AppError } from '../../errors.js';
import type { Metrics } from '../../metrics.js';
import type { Ingestor } from '../ingestor.js';
import { BatchRefused, type ParserThreads } from './batchParsers.js';
import type { PointEncoding, PointJob } from './pointRequest.js';

/** Declares a metric's dimensions from its first points' keys (src/dimensions/firstSight.ts). */
export interface FirstSight {
  declare(workspaceId: string, pointKeys: ReadonlyMap<string, readonly string[]>): Promise<void>;
}

/** Charges the records about to be journaled to the request's admission (src/ingest/admission.ts), where it has one. */
export type ChargeRecords = (records: number) => void;

export interface IntakeDeps {
  readonly ingestor: Ingestor;
  readonly metrics: Metrics;
  /** The process's parser threads (sharedParserThreads): they hold the cumulative series. */
  readonly parsers: ParserThreads;
  /** INGEST_MAX_BATCH_RECORDS and INGEST_MAX_POINTS. */
  readonly limits: { readonly maxBatchRecords: number; readonly maxPoints: number };
  readonly firstSight: FirstSight | null;
}

/** A standard format's request, its body as read. */
export interface PointRequest {
  readonly kind: PointJob['kind'];
  /** OTLP: the inflated body; remote-write: the snappy block as sent. */
  readonly body: Uint8Array;
  readonly encoding: PointEncoding;
}

/** What became of a point request: the whole of it refused, or what of its points was refused. */
export type PointsOutcome = { readonly refused: AppError } | { readonly refusedPoints: number; readonly message: string };

export class Intake {
  constructor(private readonly deps: IntakeDeps) {}

  /**
   * Journals a log batch's records; resolves once they are durable. Throws `invalid`
   * (invalid_json, validation_failed: nothing stored, the records counted as rejected) or what
   * the ingestor throws (unavailable, too_large).
   */
  async logBatch(workspaceId: string, body: Uint8Array | null, receivedAt: number, charge: ChargeRecords): Promise<void> {
    const { parsers, limits, metrics, ingestor } = this.deps;
    const batch = await parsers.parseLogBatch(body, workspaceId, receivedAt, limits.maxBatchRecords).catch((err: unknown) => {
      if (!(err instanceof BatchRefused)) throw err;
      metrics.rejectedRecords.inc({ reason: 'invalid' }, err.recordCount);
      throw err.error;
    });
    charge(batch.records);
    await ingestor.ingest(batch);
  }

  /**
   * Maps a request's points in a parser thread (pointRequest.ts), journals its records (nothing
   * when it has none), then has its cumulative series remembered: only once they are durable.
   * Returns what was refused, for partial_success, or the refusal of the whole request.
   */
  async points(workspaceId: string, request: PointRequest, receivedAt: number, charge: ChargeRecords): Promise<PointsOutcome> {
    const { parsers, limits, metrics, ingestor, firstSight } = this.deps;
    const mapped = await parsers.mapPointRequest({ ...request, workspaceId, receivedAt, maxPoints: limits.maxPoints });
    let journaled = false;
    try {
      const { reply } = mapped;
      if ('unexpected' in reply) throw new Error(`mapping a ${request.kind} request failed: ${reply.unexpected}`);
      if ('refusedRequest' in reply) return { refused: new AppError(reply.refusedRequest.kind, reply.refusedRequest.code, reply.refusedRequest.message) };
      if (reply.refusedPoints > 0) metrics.rejectedRecords.inc({ reason: 'invalid' }, reply.refusedPoints);
      if (reply.batch !== null) {
        // Before the journal: the writer then labels these first points too.
        await firstSight?.declare(workspaceId, reply.pointKeys);
        charge(reply.batch.records);
        await ingestor.ingest(reply.batch);
      }
      journaled = true;
      return { refusedPoints: reply.refusedPoints, message: reply.message };
    } finally {
      mapped.settle(journaled);
    }
  }
}
