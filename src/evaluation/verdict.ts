// From a bucket's numbers to a verdict (docs/api.md, Policies and evaluation). Pure functions: the aggregates come
// from ClickHouse (src/rollups/bucketStats.ts); what they mean for a policy is decided here.
import type { Verdict } from '../alerts/transitions.js';
import type { Aggregate, Condition } from '../policies/model.js';
import type { BucketStats } from '../rollups/model.js';

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

export interface Rule {
  readonly aggregate: Aggregate;
  readonly condition: Condition;
  readonly threshold: number;
}

/** The verdict on a closed bucket, and the value it compared. */
export function closedBucketVerdict(rule: Rule, stats: BucketStats): { value: number | null; verdict: Verdict } {
  const value = aggregateValue(rule.aggregate, stats);
  if (value === null) return { value, verdict: 'none' };
  return { value, verdict: meets(rule.condition, value, rule.threshold) ? 'breach' : 'clear' };
}

/**
 * Rules whose breach in a still-open bucket is final, because later logs can only move the
 * aggregate further past the threshold. count and sum only grow while every value seen is
 * ≥ 0 (the same condition for both; docs/api.md, Policies and evaluation); max only grows; min only falls.
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

/** The verdict on an open bucket: a breach that cannot be undone, else no verdict yet. */
export function openBucketVerdict(rule: Rule, stats: BucketStats): { value: number | null; verdict: Verdict } {
  const value = aggregateValue(rule.aggregate, stats);
  const growsOnly = rule.aggregate !== 'count' && rule.aggregate !== 'sum' ? true : stats.count === 0 || (stats.min ?? 0) >= 0;
  if (value === null || !mayFireEarly(rule) || !growsOnly) return { value, verdict: 'none' };
  return { value, verdict: meets(rule.condition, value, rule.threshold) ? 'breach' : 'none' };
}
