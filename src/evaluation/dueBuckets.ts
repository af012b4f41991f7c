// The buckets a policy judges, each with the bucket it is compared with (compare_to), their
// numbers read in one ClickHouse query for many policies of a period, and the verdict on
// each. Shared by the worker, the on-demand evaluation and the backtest.
import type { JudgedBucket } from '../alerts/evaluationChanges.js';
import type { Period } from '../policies/model.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { Bucket } from './buckets.js';
import { comparisonBucketOf } from './comparison.js';
import { readBucketStats, statsOf } from './rollupStats.js';
import type { EvaluationTarget } from './targets.js';
import { judgeBucket, type BucketStats } from './verdict.js';

/** The policy fields that decide which buckets are read and how they are judged. */
export type JudgingPolicy = Pick<
  EvaluationTarget,
  'workspace_id' | 'event_id' | 'period' | 'timezone' | 'aggregate' | 'condition' | 'threshold' | 'recovery_threshold' | 'no_data' | 'compare_to' | 'min_count'
>;

/** A bucket due for a policy, with its comparison bucket when the policy has one. */
export interface DueBucket {
  readonly bucket: Bucket;
  readonly comparison: Bucket | null;
  /** Still open: only a breach no later log can undo counts. */
  readonly open: boolean;
}

export function dueBucket(policy: JudgingPolicy, bucket: Bucket, open: boolean): DueBucket {
  const comparison = policy.compare_to === null ? null : comparisonBucketOf(policy.period, policy.timezone, bucket, policy.compare_to);
  return { bucket, comparison, open };
}

export type StatsTable = ReadonlyMap<string, BucketStats>;

/** The numbers of every due bucket of these policies (all of one period) and of every bucket they are compared with, in one query. */
export async function readDueStats(
  clickhouse: ClickHouseStore,
  period: Period,
  policies: readonly { readonly policy: JudgingPolicy; readonly buckets: readonly DueBucket[] }[],
): Promise<StatsTable> {
  const workspaceIds = new Set<string>();
  const eventIds = new Set<string>();
  let from = Infinity;
  let to = -Infinity;
  for (const { policy, buckets } of policies) {
    if (buckets.length === 0) continue;
    workspaceIds.add(policy.workspace_id);
    eventIds.add(policy.event_id);
    for (const b of buckets) {
      for (const span of b.comparison ? [b.bucket, b.comparison] : [b.bucket]) {
        from = Math.min(from, span.start);
        to = Math.max(to, span.end);
      }
    }
  }
  if (eventIds.size === 0) return new Map();
  return readBucketStats(clickhouse, { period, workspaceIds, eventIds, from, to });
}

export function judgeDue(policy: JudgingPolicy, due: DueBucket, stats: StatsTable): JudgedBucket {
  const of = (b: Bucket) => statsOf(stats, policy.workspace_id, policy.event_id, b.start);
  return judgeBucket(policy, {
    bucket: due.bucket,
    stats: of(due.bucket),
    comparison: due.comparison && { bucket: due.comparison, stats: of(due.comparison) },
    open: due.open,
  });
}
