// The bucket a comparison policy compares with (compare_to): the bucket before, or the bucket
// of the same local clock time 1 or 7 local days earlier in the event's timezone. Across a DST
// change that is 23 or 25 hours earlier in UTC; a day bucket compares with the local day 7
// days back. Minute and hour buckets are UTC-aligned, so the comparison bucket is the one that
// contains that earlier instant.
import type { CompareTo } from '../policies/model.js';
import { bucketAt, type Bucket } from '../rollups/buckets.js';
import type { Period } from '../rollups/model.js';
import { offsetAt } from '../time/zonedTime.js';

const DAY_MS = 86_400_000;
const DAYS_BACK: Readonly<Record<Exclude<CompareTo, 'previous_bucket'>, number>> = { previous_1d: 1, previous_7d: 7 };

/** UTC offsets change only at quarter hours (every zone's offset is a whole number of them): one lookup serves 15 minutes. */
const QUARTER_HOUR_MS = 900_000;
const offsets = new Map<string, number>();
const MAX_CACHED_OFFSETS = 50_000;

function cachedOffset(timezone: string, epochMs: number): number {
  const quarter = Math.floor(epochMs / QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
  const key = `${timezone} ${quarter}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    offset = offsetAt(timezone, quarter);
    if (offsets.size >= MAX_CACHED_OFFSETS) offsets.clear();
    offsets.set(key, offset);
  }
  return offset;
}

/** The instant whose local wall time is that of `epochMs`, `days` local days earlier. */
function sameWallTimeDaysBefore(timezone: string, epochMs: number, days: number): number {
  const wall = epochMs + cachedOffset(timezone, epochMs);
  // Solve t + offset(t) = wall − days: start from the offset now, correct once by the offset then.
  let t = wall - days * DAY_MS - cachedOffset(timezone, epochMs);
  t = wall - days * DAY_MS - cachedOffset(timezone, t);
  return t;
}

export function comparisonBucketOf(period: Period, timezone: string, bucket: Bucket, compareTo: CompareTo): Bucket {
  if (compareTo === 'previous_bucket') return bucketAt(period, timezone, bucket.start - 1);
  // A day bucket: aim at the middle of the day, so that a 23- or 25-hour day cannot move the aim across midnight.
  const aim = period === 'day' ? bucket.start + (bucket.end - bucket.start) / 2 : bucket.start;
  return bucketAt(period, timezone, sameWallTimeDaysBefore(timezone, aim, DAYS_BACK[compareTo]));
}
