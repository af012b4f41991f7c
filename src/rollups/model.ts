// What a rollup is: the numbers of one event's logs in one bucket of a period. Minute and
// hour buckets are UTC-aligned; a day bucket runs from local midnight to local midnight of
// the event's timezone (buckets.ts). Only src/rollups/ knows how rollups are stored; the
// rest of the service reads them through this folder's functions.

export const PERIODS = ['minute', 'hour', 'day'] as const;
export type Period = (typeof PERIODS)[number];

/** Nominal length of a period; a day bucket may be an hour shorter or longer. */
export const PERIOD_MS: Readonly<Record<Period, number>> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** A bucket as the rollup read shows it (docs/api.md, Event definitions). */
export interface RollupBucket {
  /** Start of the bucket, ms since the epoch. */
  readonly start: number;
  readonly count: number;
  readonly value: number;
  readonly squares: number;
  readonly min: number;
  readonly max: number;
}

/** A bucket's numbers as policies judge them; an empty bucket has count 0 and nulls. */
export interface BucketStats {
  readonly count: number;
  readonly sum: number;
  readonly min: number | null;
  readonly max: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
}

export const EMPTY_BUCKET: BucketStats = { count: 0, sum: 0, min: null, max: null, p95: null, p99: null };
