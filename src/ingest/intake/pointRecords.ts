// One data point of a standard format (OTLP, Prometheus remote-write) as a log record, under
// the record rules of every log record (recordRules.ts): names as there, values finite and within range, occurred_at
// within the accepted window, meta within its limits. A point that breaks a rule is refused
// on its own (the formats answer per point); meta past its limits is cut, keys dropped in
// their given order (point attributes first, then scope, then resource), and counted.
import { createHash } from 'node:crypto';
import { textProblems } from '../../validation/textRules.js';
import type { CumulativePoint } from '../cumulativeSeries.js';
import type { NewLogRecord } from '../journaledBatch.js';
import type { RecordSummary } from '../recordSummary.js';
import { MAX_ABS_VALUE, MAX_AGE_MS, MAX_AHEAD_MS, MAX_META_BYTES, MAX_META_KEYS, MAX_NAME_LENGTH } from './recordRules.js';

/** Why a point was not stored. */
export type Refusal = 'invalid_name' | 'not_finite' | 'out_of_range' | 'count_out_of_range' | 'too_old' | 'too_far_ahead' | 'no_value' | 'unsupported';

export const REFUSAL_MESSAGES: Record<Refusal, string> = {
  invalid_name: `the metric name is not a valid event name (1–${MAX_NAME_LENGTH} characters, no NUL or unpaired surrogate)`,
  not_finite: 'the value is NaN or infinite',
  out_of_range: `the value is beyond ±${MAX_ABS_VALUE}`,
  count_out_of_range: `a histogram's count, zero count or bucket count is negative, not an integer, or beyond 2^53 - 1 (${Number.MAX_SAFE_INTEGER})`,
  too_old: 'the point is more than 30 days old',
  too_far_ahead: 'the point is more than 1 day in the future',
  no_value: 'the point has no recorded value',
  unsupported: 'summary points are not stored (send histograms)',
};

/** A request of either format mapped to records. */
export interface PointMapping {
  readonly outcome: PointOutcome;
  /** Cumulative series seen, to commit once the records are durable. */
  readonly seen: Map<string, CumulativePoint>;
}

/** What the mapping of one request gives: its records, and what it refused or cut. */
export class PointOutcome {
  readonly records: NewLogRecord[] = [];
  /** Metric name → the attribute keys (labels) of its first point here: its dimensions on first sight (docs/fleets.md). */
  readonly pointKeys = new Map<string, readonly string[]>();
  readonly refused = new Map<Refusal, number>();
  droppedMetaKeys = 0;

  refuse(reason: Refusal, points = 1): void {
    this.refused.set(reason, (this.refused.get(reason) ?? 0) + points);
  }

  get refusedPoints(): number {
    let n = 0;
    for (const count of this.refused.values()) n += count;
    return n;
  }

  /** A readable summary of what was refused or cut, or '' when nothing was. */
  message(): string {
    const parts = [...this.refused].map(([reason, n]) => `${n} point(s) refused: ${REFUSAL_MESSAGES[reason]}`);
    if (this.droppedMetaKeys > 0) {
      parts.push(
        `${this.droppedMetaKeys} attribute(s) dropped past the meta limits (${MAX_META_KEYS} keys, ${MAX_META_BYTES} bytes) or holding text no store keeps`,
      );
    }
    return parts.join('; ');
  }
}

/** A trimmed event or agent name, or null when it breaks the rules of the logs route. */
export function validName(name: string): string | null {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > MAX_NAME_LENGTH || textProblems(trimmed).length > 0) return null;
  return trimmed;
}

/**
 * Compact JSON of the attributes, in order, as many as the meta limits allow; the count of
 * the others (and of any whose text no store can keep) is added to `outcome.droppedMetaKeys`.
 */
export function limitedMeta(entries: readonly (readonly [string, unknown])[], outcome: PointOutcome): string {
  if (entries.length === 0) return '';
  let json = '';
  let kept = 0;
  let bytes = 2;
  for (let i = 0; i < entries.length; i++) {
    if (kept === MAX_META_KEYS) {
      outcome.droppedMetaKeys += entries.length - i;
      break;
    }
    const [key, value] = entries[i]!;
    const pair = `${JSON.stringify(key)}:${JSON.stringify(value)}`;
    const size = Buffer.byteLength(pair, 'utf8') + (kept > 0 ? 1 : 0);
    if (bytes + size > MAX_META_BYTES || textProblems({ [key]: value }).length > 0) {
      outcome.droppedMetaKeys++;
      continue;
    }
    json += kept > 0 ? `,${pair}` : pair;
    bytes += size;
    kept++;
  }
  return kept === 0 ? '' : `{${json}}`;
}

/** A UUID derived from the series and the point's time: the same point sent again has the same log_id. */
export function pointLogId(workspaceId: string, seriesKey: string, timeKey: string): string {
  const hex = createHash('sha256').update(workspaceId).update('\u0000').update(seriesKey).update('\u0000').update(timeKey).digest('hex');
  // Version 8 (custom), RFC 9562 variant.
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export interface PointInput {
  readonly workspaceId: string;
  readonly agent: string;
  readonly event: string;
  readonly seriesKey: string;
  readonly timeKey: string;
  readonly occurredAt: number;
  readonly value: number;
  readonly meta: string;
  readonly summary?: RecordSummary;
}

/** Adds the point's record to `outcome`, or counts why it is refused. */
export function addPoint(outcome: PointOutcome, point: PointInput, now: number): void {
  const { value, occurredAt, summary } = point;
  const refusal = refusalOf(value, occurredAt, summary, now);
  if (refusal !== null) {
    outcome.refuse(refusal);
    return;
  }
  outcome.records.push({
    logId: pointLogId(point.workspaceId, point.seriesKey, point.timeKey),
    clientLogId: true,
    agent: point.agent,
    event: point.event,
    value,
    occurredAt,
    meta: point.meta,
    ...(summary === undefined ? {} : { summary }),
  });
}

function refusalOf(value: number, occurredAt: number, summary: RecordSummary | undefined, now: number): Refusal | null {
  if (!Number.isFinite(value) || (summary !== undefined && !summaryFinite(summary))) return 'not_finite';
  if (Math.abs(value) > MAX_ABS_VALUE || (summary !== undefined && Math.max(Math.abs(summary.min), Math.abs(summary.max)) > MAX_ABS_VALUE)) {
    return 'out_of_range';
  }
  if (!(occurredAt >= now - MAX_AGE_MS)) return 'too_old';
  if (occurredAt > now + MAX_AHEAD_MS) return 'too_far_ahead';
  return null;
}

const summaryFinite = (s: RecordSummary) =>
  s.count > 0 && Number.isFinite(s.squares) && Number.isFinite(s.min) && Number.isFinite(s.max) && s.means.every(Number.isFinite);
