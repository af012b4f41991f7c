// Bucket arithmetic: the minute, hour or day that contains an instant. Minutes and hours are
// UTC-aligned, like the minute and hour rollups; a day runs from local midnight to local
// midnight in the event's timezone (23, 24 or 25 hours), like the day rollup.
import { localDayOf } from '../time/localDay.js';
import { PERIOD_MS, type Period } from './model.js';

export interface Bucket {
  /** Start, ms since the epoch (inclusive). */
  readonly start: number;
  /** End, ms since the epoch (exclusive). */
  readonly end: number;
}

export function bucketAt(period: Period, timezone: string, epochMs: number): Bucket {
  if (period === 'day') return localDayOf(timezone, epochMs);
  const length = PERIOD_MS[period];
  const start = Math.floor(epochMs / length) * length;
  return { start, end: start + length };
}

/** The last bucket that ends at or before `epochMs`. */
export function lastClosedBucket(period: Period, timezone: string, epochMs: number): Bucket {
  return bucketAt(period, timezone, bucketAt(period, timezone, epochMs).start - 1);
}

export const bucketAfter = (period: Period, timezone: string, bucket: Bucket): Bucket => bucketAt(period, timezone, bucket.end);
