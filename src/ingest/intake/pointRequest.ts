// The work of one OTLP or remote-write request between its body and the journal, as the
// parser threads do it (batchParsers.ts), off the event loop: decode the body, count
// its points against INGEST_MAX_POINTS (413 beyond, before any is mapped), map them to records
// (otlp.ts, remoteWrite.ts) and serialise them for the journal. At 150,000 points this took
// about two seconds of the event loop (issue 51), during which no other request was answered.
//
// The cumulative series of a workspace (increases, ../cumulativeSeries.ts) live in the
// thread its requests go to (always the same one while it runs): a request reads them, and
// what it saw is committed there only once its records are journaled (commitPoints).
import { AppError, type ErrorKind, invalid, tooLarge } from '../../errors.js';
import { decodeJsonText, parseJsonText } from '../../validation/jsonText.js';
import { CumulativeSeries } from '../cumulativeSeries.js';
import { type PreparedBatch, prepareBatch } from '../journaledBatch.js';
import { unsnappied } from './pointBody.js';
import { DECODE_OPTIONS, ExportMetricsServiceRequest, WriteRequest } from './otlpProto.js';
import { type MetricsRequest, otlpPointCount, otlpRecords } from './otlp.js';
import type { PointMapping } from './pointRecords.js';
import { remoteWriteRecords, remoteWriteSampleCount, type WriteRequestMessage } from './remoteWrite.js';

export type PointEncoding = 'protobuf' | 'json';

export interface PointJob {
  readonly id: number;
  readonly kind: 'otlp' | 'remote-write';
  /** OTLP: the inflated body; remote-write: the snappy block as sent. */
  readonly body: Uint8Array;
  readonly encoding: PointEncoding;
  readonly workspaceId: string;
  readonly receivedAt: number;
  readonly maxPoints: number;
}

export type PointReply =
  | {
      readonly id: number;
      /** Null when no point became a record. */
      readonly batch: PreparedBatch | null;
      readonly refusedPoints: number;
      /** What was refused or cut, for partial_success ('' when nothing was). */
      readonly message: string;
      /** The attribute keys (OTLP) or label names (remote-write) of each metric name, for dimensions declared on first sight. */
      readonly pointKeys: ReadonlyMap<string, readonly string[]>;
    }
  /** The whole request refused (an AppError's kind, code and message: malformed, too many points). */
  | { readonly id: number; readonly refusedRequest: { readonly kind: ErrorKind; readonly code: string; readonly message: string } }
  | { readonly id: number; readonly unexpected: string };

/** Cumulative series remembered per process for increases, shared out among the threads. */
export const MAX_CUMULATIVE_SERIES = 1_000_000;

const malformed = (what: string) => invalid('malformed_body', `The request body is not a valid ${what}; nothing of it was stored.`);

/** too_large (413) for a request of more points than the bound (INGEST_MAX_POINTS), before any is mapped or journaled. */
function refuseBeyond(points: number, maxPoints: number, what: string): void {
  if (points <= maxPoints) return;
  throw tooLarge(
    'too_many_points',
    `The request carries ${points} ${what}, beyond the ${maxPoints} one request may carry (INGEST_MAX_POINTS); nothing of it was stored. Send them in smaller requests.`,
  );
}

function decodeOtlp(bytes: Uint8Array, encoding: PointEncoding): MetricsRequest {
  // JSON is read as on every route: UTF-8 only and valid JSON (else invalid_json), prototype poisoning refused.
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

function decodeRemoteWrite(body: Uint8Array): WriteRequestMessage {
  const bytes = unsnappied(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  try {
    return WriteRequest.toObject(WriteRequest.decode(bytes), DECODE_OPTIONS) as WriteRequestMessage;
  } catch {
    throw malformed('WriteRequest');
  }
}

/** A parser thread's point requests: their mapping, and the cumulative series of the workspaces sent to it. */
export class PointRequests {
  private readonly cumulative: CumulativeSeries;
  /** Requests mapped and not yet committed or dropped: what each saw of its cumulative series. */
  private readonly pending = new Map<number, { workspaceId: string; mapping: PointMapping }>();

  constructor(maxSeries: number) {
    this.cumulative = new CumulativeSeries(maxSeries);
  }

  map(job: PointJob): PointReply {
    const { id, workspaceId, receivedAt } = job;
    try {
      let mapping: PointMapping;
      if (job.kind === 'otlp') {
        const request = decodeOtlp(job.body, job.encoding);
        refuseBeyond(otlpPointCount(request), job.maxPoints, 'data points');
        mapping = otlpRecords(request, workspaceId, this.cumulative, receivedAt);
      } else {
        const request = decodeRemoteWrite(job.body);
        refuseBeyond(remoteWriteSampleCount(request), job.maxPoints, 'samples');
        mapping = remoteWriteRecords(request, workspaceId, this.cumulative, receivedAt);
      }
      const { outcome } = mapping;
      if (mapping.seen.size > 0) this.pending.set(id, { workspaceId, mapping });
      const batch = outcome.records.length > 0 ? prepareBatch(workspaceId, receivedAt, outcome.records) : null;
      return { id, batch, refusedPoints: outcome.refusedPoints, message: outcome.message(), pointKeys: outcome.pointKeys };
    } catch (err) {
      if (err instanceof AppError) return { id, refusedRequest: { kind: err.kind, code: err.code, message: err.message } };
      return { id, unexpected: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
  }

  /** The request's records are journaled (`journaled`), or it failed: its cumulative series are remembered, or forgotten. */
  settle(id: number, journaled: boolean): void {
    const held = this.pending.get(id);
    if (held === undefined) return;
    this.pending.delete(id);
    if (journaled) this.cumulative.commit(held.workspaceId, held.mapping.seen);
  }
}
