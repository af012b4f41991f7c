// Which buckets of a policy are due now. A closed bucket (ended, plus EVAL_GRACE_MS for late
// logs) is evaluated exactly once, in order, from the policy's evaluated_until on; the
// bucket after the last closed one may fire early (verdict.ts decides whether it can), and
// so may the current bucket while that one is still in its grace time, where nothing the
// late bucket's verdict brings can change the current one's (no pending run, no comparison
// with the bucket before): a breach in the first seconds of a minute pages at once rather
// than when the previous minute's grace ends.
import { bucketAfter, bucketAt, lastClosedBucket, type Bucket } from '../rollups/buckets.js';
import { PERIOD_MS, type Period } from '../rollups/model.js';
import type { PolicyRule } from '../policies/model.js';
import type { EvaluationTarget } from './targets.js';

/** What decides a policy's plan: its bucket grid, its progress, and whether its current bucket may fire before the one before it. */
export type PlanSubject = Pick<PolicyRule, 'period' | 'pending_buckets' | 'compare_to' | 'aggregate' | 'condition'> & {
  readonly timezone: string;
  readonly evaluated_until: Date | null;
};

/**
 * How many closed buckets a policy catches up after a pause of the workers: an hour of
 * minutes, a day of hours, a week of days. Older missed buckets are skipped — alerting now
 * about a spike hours ago would be noise — and counted in alertmon_evaluation_skipped_buckets_total.
 */
export const MAX_CATCH_UP_BUCKETS: Readonly<Record<Period, number>> = { minute: 60, hour: 24, day: 7 };

export interface Plan<T extends PlanSubject = EvaluationTarget> {
  readonly target: T;
  /** Closed buckets to evaluate, oldest first. */
  readonly closed: readonly Bucket[];
  /** The next bucket, still open (or in its grace time), when it has begun. */
  readonly open: Bucket | null;
  /** The current bucket, when `open` has ended and is in its grace time and this policy's current bucket may fire before it is judged. */
  readonly current: Bucket | null;
  /** The new evaluated_until (ms) once the closed buckets are evaluated. */
  readonly evaluatedUntil: number;
  /** Closed buckets passed over because they lie beyond the catch-up limit. */
  readonly skipped: number;
}

export function planEvaluation<T extends PlanSubject>(target: T, now: number, graceMs: number): Plan<T> {
  const { period, timezone } = target;
  // A new or re-enabled policy starts with the last bucket that has ended.
  let cursor = target.evaluated_until?.getTime() ?? lastClosedBucket(period, timezone, now).start;

  const newestClosed = lastClosedBucket(period, timezone, now - graceMs);
  const length = PERIOD_MS[period];
  // Mid-bucket aim, so a 23- or 25-hour day cannot shift the limit by a whole day.
  const oldestAllowed = bucketAt(period, timezone, newestClosed.start - (MAX_CATCH_UP_BUCKETS[period] - 1) * length + length / 2).start;
  let skipped = 0;
  if (cursor < oldestAllowed) {
    skipped = Math.round((oldestAllowed - bucketAt(period, timezone, cursor).start) / length);
    cursor = oldestAllowed;
  }

  const closed: Bucket[] = [];
  let bucket = bucketAt(period, timezone, cursor);
  while (bucket.end + graceMs <= now) {
    closed.push(bucket);
    bucket = bucketAfter(period, timezone, bucket);
  }
  const open = bucket.start <= now ? bucket : null;
  return {
    target,
    closed,
    open,
    current: firesBeforeTheBucketBefore(target) ? currentWhileInGrace(target, open, now) : null,
    evaluatedUntil: closed.length > 0 ? closed[closed.length - 1]!.end : cursor,
    skipped,
  };
}

/** The bucket `now` falls in, when `open` has ended and is in its grace time; else null. */
function currentWhileInGrace(target: Pick<PlanSubject, 'period' | 'timezone'>, open: Bucket | null, now: number): Bucket | null {
  return open !== null && open.end <= now ? bucketAt(target.period, target.timezone, now) : null;
}

/** A breach of the current bucket stands whatever the bucket before it turns out to be: no pending run counts it, no comparison reads it. */
function firesBeforeTheBucketBefore(target: Pick<PlanSubject, 'pending_buckets' | 'compare_to'>): boolean {
  return target.pending_buckets === 1 && target.compare_to !== 'previous_bucket';
}

/**
 * planEvaluation for many policies at one moment. Policies of a period whose buckets are the
 * same (minutes and hours are UTC-aligned; days depend on the timezone) and that stand at the
 * same evaluated_until share one plan's buckets, computed once: a catch-up cycle over 100,000
 * policies otherwise builds millions of identical bucket objects.
 */
export function plannerAt<T extends PlanSubject = EvaluationTarget>(now: number, graceMs: number): (target: T) => Plan<T> {
  const shapes = new Map<string, { readonly shape: Omit<Plan<T>, 'target' | 'current'>; readonly current: Bucket | null }>();
  return (target) => {
    const zone = target.period === 'day' ? target.timezone : '';
    const key = `${target.period}\u0000${zone}\u0000${target.evaluated_until?.getTime() ?? ''}`;
    let shared = shapes.get(key);
    if (!shared) {
      const { target: _first, current: _its, ...shape } = planEvaluation(target, now, graceMs);
      shared = { shape, current: currentWhileInGrace(target, shape.open, now) };
      shapes.set(key, shared);
    }
    return { target, ...shared.shape, current: firesBeforeTheBucketBefore(target) ? shared.current : null };
  };
}
