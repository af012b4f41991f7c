// From a bucket's numbers to a verdict, with every rule option of a policy (docs/api.md,
// Policies and evaluation). Pure functions, shared by the worker, the on-demand evaluation
// and the backtest: the numbers come from ClickHouse (src/rollups/); what they mean for a
// policy is decided here.
import type { JudgedBucket } from './alertChanges.js';
import type { Verdict } from '../alerts/transitions.js';
import type { Aggregate, Condition, PolicyRule } from '../policies/model.js';
import type { Bucket } from '../rollups/buckets.js';
import { EMPTY_BUCKET, type BucketStats } from '../rollups/model.js';

/** The aggregate of a bucket; null = no data (an empty bucket has a count and a sum of 0, nothing else). */
export function aggregateValue(aggregate: Aggregate, s: BucketStats): number | null {
  if (aggregate === 'count') return s.count;
  if (aggregate === 'sum') return s.sum;
  if (s.count === 0) return null;
  switch (aggregate) {
    case 'average':
      return s.sum / s.count;
    case 'min':
      return s.min;
    case 'max':
      return s.max;
    case 'p95_est':
      return s.p95;
    case 'p99_est':
      return s.p99;
  }
}

/**
 * Floats that differ only by rounding are equal: |a − b| ≤ 1e-9 × max(|a|, |b|, 1), so
 * 0.1 + 0.2 eq 0.3 holds, and an average of 1/3 equals 0.333333333333. gte and lte include
 * that equality and gt and lt exclude it, so exactly one of lt, eq and gt holds.
 */
export function nearlyEqual(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b), 1);
}

export function meets(condition: Condition, value: number, threshold: number): boolean {
  const eq = nearlyEqual(value, threshold);
  switch (condition) {
    case 'eq':
      return eq;
    case 'gt':
      return value > threshold && !eq;
    case 'gte':
      return value > threshold || eq;
    case 'lt':
      return value < threshold && !eq;
    case 'lte':
      return value < threshold || eq;
  }
}

/** What of a policy's rule decides one bucket's verdict: what is compared, how, and the options that change it. */
export type Rule = Omit<PolicyRule, 'period' | 'pending_buckets'>;

/** The verdict on one bucket, and the numbers behind it. */
export interface Judgement {
  /** The number compared with the threshold: the aggregate, or its percentage change; null = none. */
  readonly value: number | null;
  /** The bucket's aggregate (null = no data). */
  readonly aggregateValue: number | null;
  /** The comparison bucket's aggregate; null without compare_to or without data. */
  readonly comparisonValue: number | null;
  /** Against `threshold`: does the bucket breach (raise, or count toward a pending run)? */
  readonly verdict: Verdict;
  /** For an open alert: breach keeps it open, clear resolves it (against recovery_threshold when set). */
  readonly openVerdict: Verdict;
}

const grows = (aggregate: Aggregate) => aggregate === 'count' || aggregate === 'sum';

/**
 * The percentage change from `previous` to `current`. The base is |previous|, so a positive
 * change always means "above": the same as (current − previous) / previous × 100 whenever
 * previous > 0 (counts, sums and aggregates of positive values).
 */
export const pctChange = (current: number, previous: number) => ((current - previous) / Math.abs(previous)) * 100;

function judged(value: number | null, aggregate: number | null, comparison: number | null, verdict: Verdict, openVerdict = verdict): Judgement {
  return { value, aggregateValue: aggregate, comparisonValue: comparison, verdict, openVerdict };
}

/** The verdict on a closed bucket; `comparison` is the comparison bucket's stats when compare_to is set. */
export function closedBucketVerdict(rule: Rule, stats: BucketStats, comparison: BucketStats = EMPTY_BUCKET): Judgement {
  const aggregate = aggregateValue(rule.aggregate, stats);
  if (aggregate === null) {
    // An empty bucket, for an aggregate that has no value without logs.
    const verdict: Verdict = rule.no_data === 'breach' ? 'breach' : rule.no_data === 'ok' ? 'clear' : 'none';
    return judged(null, null, null, verdict);
  }
  if (stats.count < rule.min_count) return judged(null, aggregate, null, 'none');
  let value = aggregate;
  let previous: number | null = null;
  if (rule.compare_to !== null) {
    previous = aggregateValue(rule.aggregate, comparison);
    // No comparison without a base: an empty or zero comparison bucket, or one with too few logs.
    if (previous === null || previous === 0 || comparison.count < rule.min_count) return judged(null, aggregate, previous, 'none');
    value = pctChange(aggregate, previous);
  }
  const verdict: Verdict = meets(rule.condition, value, rule.threshold) ? 'breach' : 'clear';
  const openVerdict: Verdict = rule.recovery_threshold === null ? verdict : meets(rule.condition, value, rule.recovery_threshold) ? 'breach' : 'clear';
  return judged(value, aggregate, previous, verdict, openVerdict);
}

/**
 * Rules whose breach in a still-open bucket is final, because later logs can only move the
 * aggregate further past the threshold. count and sum only grow while every value seen is
 * ≥ 0 (docs/api.md, Policies and evaluation, states the condition for both); max only grows; min only falls.
 */
export function mayFireEarly(rule: Pick<Rule, 'aggregate' | 'condition'>): boolean {
  const rising = rule.condition === 'gt' || rule.condition === 'gte';
  const falling = rule.condition === 'lt' || rule.condition === 'lte';
  switch (rule.aggregate) {
    case 'count':
    case 'sum':
    case 'max':
      return rising;
    case 'min':
      return falling;
    default:
      return false;
  }
}

/**
 * The verdict on an open bucket: a breach that no later log can undo, else no verdict yet.
 * The options keep that guarantee: an empty bucket may still get logs (no no_data verdict);
 * a count below min_count may still grow past it (no verdict until it has); and a percentage
 * change over a fixed, non-zero base (the comparison bucket has closed) moves with the
 * aggregate, so it is final exactly when the aggregate's breach would be.
 */
export function openBucketVerdict(rule: Rule, stats: BucketStats, comparison: BucketStats = EMPTY_BUCKET): Judgement {
  const monotonic = !grows(rule.aggregate) || stats.count === 0 || (stats.min ?? 0) >= 0;
  const closed = closedBucketVerdict(rule, stats, comparison);
  if (!mayFireEarly(rule) || !monotonic || closed.aggregateValue === null || closed.verdict !== 'breach') {
    return judged(closed.value, closed.aggregateValue, closed.comparisonValue, 'none');
  }
  return closed;
}

/** A bucket to judge: its span and numbers, and those of its comparison bucket when the rule has one. */
export interface BucketToJudge {
  readonly bucket: Bucket;
  readonly stats: BucketStats;
  readonly comparison: { readonly bucket: Bucket; readonly stats: BucketStats } | null;
  /** Still open: only a breach no later log can undo counts. */
  readonly open: boolean;
  /** Judged before the bucket before it (dueBuckets.ts). */
  readonly ahead?: boolean;
}

/** The verdict on a bucket, with what the alert state machine needs of it. */
export function judgeBucket(rule: Rule, { bucket, stats, comparison, open, ahead }: BucketToJudge): JudgedBucket {
  const judgement = (open ? openBucketVerdict : closedBucketVerdict)(rule, stats, comparison?.stats);
  return {
    start: bucket.start,
    end: bucket.end,
    value: judgement.value,
    aggregateValue: judgement.aggregateValue,
    comparisonValue: judgement.comparisonValue,
    comparisonStart: comparison?.bucket.start ?? null,
    count: stats.count,
    min: stats.min,
    max: stats.max,
    verdict: judgement.verdict,
    openVerdict: judgement.openVerdict,
    early: open,
    ...(ahead ? { ahead } : {}),
  };
}
