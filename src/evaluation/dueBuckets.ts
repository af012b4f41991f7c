// The buckets a policy judges, each with the bucket it is compared with (compare_to), their
// numbers read in one ClickHouse query for many policies of a period, and the verdict on
// each. Shared by the worker, the on-demand evaluation and the backtest.
import type { JudgedBucket } from './alertChanges.js';
import type { Bucket } from '../rollups/buckets.js';
import { eventStatsOf, readPeriodsBucketStats, type BucketStatsTable, type EventBucketStats, type StatsRequest } from '../rollups/bucketStats.js';
import { EMPTY_BUCKET, type Period } from '../rollups/model.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { TimeRange } from '../time/range.js';
import { comparisonBucketOf } from './comparison.js';
import type { PolicyRule } from '../policies/model.js';
import type { EvaluationTarget } from './targets.js';
import type { Plan, PlanSubject } from './planner.js';
import { judgeBucket, mayFireEarly } from './verdict.js';

/** The policy fields that decide which buckets are read and how they are judged. */
export type JudgingPolicy = PolicyRule & Pick<EvaluationTarget, 'workspace_id' | 'event_id' | 'timezone'>;

/** What decides a policy's due buckets and their comparison buckets. */
export type BucketGrid = Pick<PolicyRule, 'period' | 'compare_to'> & { readonly timezone: string };

/** A bucket due for a policy, with its comparison bucket when the policy has one. */
export interface DueBucket {
  readonly bucket: Bucket;
  readonly comparison: Bucket | null;
  /** Still open: only a breach no later log can undo counts. */
  readonly open: boolean;
  /** Open, and judged before the bucket before it (still in its grace time): it may raise an alert, never change an open one. */
  readonly ahead?: boolean;
}

export function dueBucket(policy: BucketGrid, bucket: Bucket, open: boolean, ahead = false): DueBucket {
  const comparison = policy.compare_to === null ? null : comparisonBucketOf(policy.period, policy.timezone, bucket, policy.compare_to);
  return { bucket, comparison, open, ...(ahead ? { ahead } : {}) };
}

const judgesQuantiles = ({ aggregate }: Pick<JudgingPolicy, 'aggregate'>) => aggregate === 'p95_est' || aggregate === 'p99_est';

/** Due buckets of policies of one period: what readDueStats reads. */
export interface PeriodDue {
  readonly period: Period;
  readonly policies: readonly { readonly policy: JudgingPolicy; readonly buckets: readonly DueBucket[] }[];
}

/**
 * The numbers of every due bucket of these policies (all of one period) and of every bucket
 * they are compared with, in one query. The quantiles only where a policy judging one has a
 * closed bucket due: an open bucket's quantile can never fire early (verdict.ts,
 * mayFireEarly), and merging t-digests is most of an hour or day read.
 */
export async function readDueStats(clickhouse: ClickHouseStore, period: Period, policies: PeriodDue['policies']): Promise<BucketStatsTable> {
  return (await readPeriodsDueStats(clickhouse, [{ period, policies }])).get(period) ?? new Map();
}

/** readDueStats for several periods in one query. */
export async function readPeriodsDueStats(clickhouse: ClickHouseStore, due: readonly PeriodDue[]): Promise<ReadonlyMap<Period, BucketStatsTable>> {
  return readPeriodsBucketStats(clickhouse, due.map(statsRequestOf));
}

function statsRequestOf({ period, policies }: PeriodDue): StatsRequest {
  const workspaceIds = new Set<string>();
  const eventIds = new Set<string>();
  // Policies sharing a plan share their spans (planner.ts): each distinct span once, not one a policy to sort and join.
  const ranges = new Map<string, TimeRange>();
  const addRange = (from: number, to: number) => {
    const key = `${from}:${to}`;
    if (!ranges.has(key)) ranges.set(key, { from, to });
  };
  for (const { policy, buckets } of policies) {
    if (buckets.length === 0) continue;
    workspaceIds.add(policy.workspace_id);
    eventIds.add(policy.event_id);
    // The span of the buckets due, and the span of the buckets they are compared with.
    addRange(buckets[0]!.bucket.start, buckets[buckets.length - 1]!.bucket.end);
    const first = buckets[0]!.comparison;
    const last = buckets[buckets.length - 1]!.comparison;
    if (first && last) addRange(first.start, last.end);
  }
  const quantiles = policies.some(({ policy, buckets }) => judgesQuantiles(policy) && buckets.some((b) => !b.open));
  return { period, workspaceIds, eventIds, ranges: [...ranges.values()], quantiles };
}

export function judgeDue(policy: JudgingPolicy, due: DueBucket, stats: BucketStatsTable): JudgedBucket {
  return judgeDueOf(policy, due, eventStatsOf(stats, policy.workspace_id, policy.event_id));
}

/** judgeDue over many buckets of one policy: its event's numbers are looked up once. */
export function judgeAllDue(policy: JudgingPolicy, due: readonly DueBucket[], stats: BucketStatsTable): JudgedBucket[] {
  const buckets = eventStatsOf(stats, policy.workspace_id, policy.event_id);
  return due.map((d) => judgeDueOf(policy, d, buckets));
}

const statsAt = (buckets: EventBucketStats, b: Bucket) => buckets.get(b.start) ?? EMPTY_BUCKET;

/** judgeDue on numbers already at hand (a policy unit test's, aggregated from its own records). */
export const judgeDueWith = (policy: JudgingPolicy, due: DueBucket, buckets: EventBucketStats): JudgedBucket => judgeDueOf(policy, due, buckets);

/** Called for every bucket judged (3.6 million in a catch-up cycle of 100,000 policies): it creates no function. */
function judgeDueOf(policy: JudgingPolicy, due: DueBucket, buckets: EventBucketStats): JudgedBucket {
  return judgeBucket(policy, {
    bucket: due.bucket,
    stats: statsAt(buckets, due.bucket),
    comparison: due.comparison && { bucket: due.comparison, stats: statsAt(buckets, due.comparison) },
    open: due.open,
    ...(due.ahead ? { ahead: true } : {}),
  });
}

/**
 * The due buckets of a plan: closed ones in order, then the open one and the current one
 * where the rule may fire early. For any other rule an open bucket has no verdict
 * (verdict.ts, mayFireEarly), so neither it nor the bucket it is compared with is read.
 */
export const dueBucketsOf = <T extends PlanSubject>(plan: Plan<T>): DueBucket[] => {
  const closed = plan.closed.map((b) => dueBucket(plan.target, b, false));
  if (!mayFireEarly(plan.target)) return closed;
  return [
    ...closed,
    ...(plan.open ? [dueBucket(plan.target, plan.open, true)] : []),
    ...(plan.current ? [dueBucket(plan.target, plan.current, true, true)] : []),
  ];
};
