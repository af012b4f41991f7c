// A record that stands for many observations: a histogram point of OpenTelemetry or
// Prometheus (schema/clickhouse/0006_summary_rows.sql). Its `value` is the observations' sum;
// the summary carries what the rollups need besides: their count, sum of squares, min, max,
// a variance state and the buckets for the quantile sketch. In the journal a summary record's
// line has one more tab-separated field after its row: these columns of the logs table, as
// JSON text (journaledBatch.ts), so that lines of ordinary records are as they always were.
import { decimalText } from './numberText.js';

export interface RecordSummary {
  /** Observations the record stands for (≥ 1). */
  readonly count: number;
  /** Their sum: the record's value. */
  readonly sum: number;
  readonly squares: number;
  readonly min: number;
  readonly max: number;
  /** varSampStable's state of the observations, hex (see welfordStateHex). */
  readonly varianceHex: string;
  /** Bucket midpoints, and the observations in each (> 0), for the t-digest; never empty. */
  readonly means: readonly number[];
  readonly weights: readonly number[];
}

/** The summary columns of logs, in the order summaryColumnsText writes them. */
export const SUMMARY_COLUMNS = ['weight', 'summary_squares', 'summary_min', 'summary_max', 'summary_variance', 'sketch_means', 'sketch_weights'];

/** The summary's columns as the JSON text of a JSONCompactEachRow row's continuation (no leading comma). */
export function summaryColumnsText(s: RecordSummary): string {
  const means = s.means.map(decimalText).join(',');
  const weights = s.weights.map((w) => String(w)).join(',');
  return `${s.count},${decimalText(s.squares)},${decimalText(s.min)},${decimalText(s.max)},"${s.varianceHex}",[${means}],[${weights}]`;
}

/**
 * ClickHouse's varSampStable state (Welford: count as a varint, then mean and M2 as
 * little-endian doubles), hex: the form the summary views cast back into a state.
 */
export function welfordStateHex(count: number, mean: number, m2: number): string {
  const bytes: number[] = [];
  let n = BigInt(count);
  do {
    let byte = Number(n & 0x7fn);
    n >>= 7n;
    if (n > 0n) byte |= 0x80;
    bytes.push(byte);
  } while (n > 0n);
  const doubles = Buffer.alloc(16);
  doubles.writeDoubleLE(mean, 0);
  doubles.writeDoubleLE(m2, 8);
  return Buffer.concat([Buffer.from(bytes), doubles]).toString('hex');
}

/** One bucket of a histogram: the observations between `lower` and `upper` (either may be infinite). */
export interface HistogramBucket {
  readonly lower: number;
  readonly upper: number;
  readonly count: number;
}

/**
 * The summary of a histogram point: count, sum, min and max exact where the client sent them
 * (min/max otherwise the bounds of the outermost non-empty buckets, clamped to finite
 * values); squares and variance estimated from bucket midpoints around the exact mean; the
 * sketch fed with each non-empty bucket's midpoint. An open-ended bucket's point is its
 * finite bound (or min/max when known), so p95/p99 stay within the bucket holding them. A
 * point without a sum (OTLP leaves it out when observations may be negative) gets the sum of
 * its bucket midpoints.
 */
export function histogramSummary(count: number, sentSum: number, buckets: readonly HistogramBucket[], min?: number, max?: number): RecordSummary {
  const filled = buckets.filter((b) => b.count > 0);
  const sumKnown = Number.isFinite(sentSum);
  const mean = sumKnown ? sentSum / count : 0;
  const lo = min ?? finiteOr(filled[0]?.lower, filled[0]?.upper, mean);
  const hi = max ?? finiteOr(filled[filled.length - 1]?.upper, filled[filled.length - 1]?.lower, mean);
  const means: number[] = [];
  const weights: number[] = [];
  for (const b of filled) {
    const lower = Number.isFinite(b.lower) ? Math.max(b.lower, lo) : lo;
    const upper = Number.isFinite(b.upper) ? Math.min(b.upper, hi) : hi;
    means.push(lower <= upper ? (lower + upper) / 2 : Number.isFinite(b.upper) ? b.upper : b.lower);
    weights.push(b.count);
  }
  if (means.length === 0) {
    means.push(mean);
    weights.push(count);
  }
  const sum = sumKnown ? sentSum : means.reduce((total, m, i) => total + m * weights[i]!, 0);
  return summaryOf(count, sum, lo, hi, means, weights);
}

function summaryOf(count: number, sum: number, lo: number, hi: number, means: number[], weights: number[]): RecordSummary {
  const mean = sum / count;
  let m2 = 0;
  for (let i = 0; i < means.length; i++) m2 += weights[i]! * (means[i]! - mean) ** 2;
  if (!Number.isFinite(m2)) m2 = 0;
  const squares = m2 + (sum * sum) / count;
  return { count, sum, squares, min: lo, max: hi, varianceHex: welfordStateHex(count, mean, m2), means, weights };
}

const finiteOr = (a: number | undefined, b: number | undefined, fallback: number): number =>
  a !== undefined && Number.isFinite(a) ? a : b !== undefined && Number.isFinite(b) ? b : fallback;
