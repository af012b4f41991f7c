// Policy evaluation without HTTP: a cycle over every enabled policy (the worker) and the
// evaluation of one policy's last closed bucket (POST /v1.0/policies/:id/evaluate). Both
// read bucket numbers from ClickHouse first and then apply the verdicts in short Postgres
// transactions; `now` is injectable so tests need not wait for real minutes.
import type { JudgedBucket } from '../alerts/evaluationChanges.js';
import type { Verdict } from '../alerts/transitions.js';
import type { Alert } from '../alerts/model.js';
import { lastClosedBucket, type Bucket } from '../rollups/buckets.js';
import { readBucketStats, statsOf, type BucketStatsTable } from '../rollups/bucketStats.js';
import type { BucketStats, Period } from '../rollups/model.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { TimeRange } from '../time/range.js';
import type { PostgresStore } from '../stores/postgres.js';
import { applyOutcomes, type PolicyOutcome } from './applyOutcomes.js';
import { planEvaluation, type Plan } from './planner.js';
import { loadEnabledTargets, loadTarget } from './targets.js';
import { closedBucketVerdict, openBucketVerdict } from './verdict.js';

export interface EvaluatorDeps {
  readonly postgres: PostgresStore;
  readonly clickhouse: ClickHouseStore;
  /** EVAL_GRACE_MS: a bucket is evaluated this long after it closed. */
  readonly graceMs: number;
  /** The clock, ms since the epoch. */
  readonly now?: () => number;
}

export interface CycleReport {
  /** Enabled policies read. */
  readonly policies: number;
  /** Closed buckets evaluated (policy × bucket), applied. */
  readonly evaluations: number;
  /** Closed buckets passed over by the catch-up limit. */
  readonly skippedBuckets: number;
  readonly raised: number;
  readonly resolved: number;
}

export interface ManualEvaluation {
  readonly policy_id: string;
  readonly bucket: Bucket;
  readonly stats: BucketStats;
  readonly value: number | null;
  readonly breached: boolean;
  readonly alert: Alert | null;
}

export class PolicyEvaluator {
  private readonly now: () => number;

  constructor(private readonly deps: EvaluatorDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Evaluates every due bucket of every enabled policy: one ClickHouse query per period in use. */
  async evaluateDuePolicies(): Promise<CycleReport> {
    const now = this.now();
    const plans = (await loadEnabledTargets(this.deps.postgres)).map((t) => planEvaluation(t, now, this.deps.graceMs));
    const outcomes: PolicyOutcome[] = [];
    for (const [period, group] of groupByPeriod(plans)) {
      const stats = await this.readStats(period, group);
      for (const plan of group) {
        const outcome = outcomeOf(plan, stats);
        if (outcome) outcomes.push(outcome);
      }
    }
    const result = await applyOutcomes(this.deps.postgres, outcomes, new Date(now));
    const applied = outcomes.filter((o) => result.latest.has(o.target.policy_id));
    return {
      policies: plans.length,
      evaluations: applied.reduce((n, o) => n + o.buckets.filter((b) => !b.early).length, 0),
      skippedBuckets: plans.reduce((n, p) => n + p.skipped, 0),
      raised: result.raised,
      resolved: result.resolved,
    };
  }

  /** Evaluates the last bucket closed before `at` (default now) and applies the verdict. */
  async evaluateLastClosedBucket(workspaceId: string, policyId: string, at?: number): Promise<ManualEvaluation> {
    const target = await loadTarget(this.deps.postgres, workspaceId, policyId);
    const bucket = lastClosedBucket(target.period, target.timezone, at ?? this.now());
    const stats = await readBucketStats(this.deps.clickhouse, {
      period: target.period,
      workspaceIds: new Set([workspaceId]),
      eventIds: new Set([target.event_id]),
      ranges: [{ from: bucket.start, to: bucket.end }],
    });
    const bucketStats = statsOf(stats, workspaceId, target.event_id, bucket.start);
    const judged = judgedBucket(bucket, bucketStats, closedBucketVerdict(target, bucketStats), false);
    const { value, verdict } = judged;
    const result = await applyOutcomes(this.deps.postgres, [{ target, buckets: [judged], evaluatedUntil: null }], new Date(this.now()));
    // The policy was deleted between the two reads.
    if (!result.latest.has(policyId)) await loadTarget(this.deps.postgres, workspaceId, policyId);
    return { policy_id: policyId, bucket, stats: bucketStats, value, breached: verdict === 'breach', alert: result.latest.get(policyId) ?? null };
  }

  private async readStats(period: Period, plans: readonly Plan[]): Promise<BucketStatsTable> {
    const workspaceIds = new Set<string>();
    const eventIds = new Set<string>();
    const ranges: TimeRange[] = [];
    for (const plan of plans) {
      const buckets = plan.open ? [...plan.closed, plan.open] : plan.closed;
      if (buckets.length === 0) continue;
      workspaceIds.add(plan.target.workspace_id);
      eventIds.add(plan.target.event_id);
      ranges.push({ from: buckets[0]!.start, to: buckets[buckets.length - 1]!.end });
    }
    if (eventIds.size === 0) return new Map<string, BucketStats>();
    return readBucketStats(this.deps.clickhouse, { period, workspaceIds, eventIds, ranges });
  }
}

function groupByPeriod(plans: readonly Plan[]): Map<Period, Plan[]> {
  const groups = new Map<Period, Plan[]>();
  for (const plan of plans) {
    const group = groups.get(plan.target.period) ?? [];
    group.push(plan);
    groups.set(plan.target.period, group);
  }
  return groups;
}

/** The verdicts of a plan's buckets; null when there is nothing to write. */
function outcomeOf(plan: Plan, stats: BucketStatsTable): PolicyOutcome | null {
  const { target } = plan;
  const judge = (bucket: Bucket, open: boolean): JudgedBucket => {
    const s = statsOf(stats, target.workspace_id, target.event_id, bucket.start);
    return judgedBucket(bucket, s, open ? openBucketVerdict(target, s) : closedBucketVerdict(target, s), open);
  };
  const buckets = plan.closed.map((b) => judge(b, false));
  const early = plan.open && judge(plan.open, true);
  if (early && early.verdict === 'breach') buckets.push(early);
  const moves = plan.evaluatedUntil !== target.evaluated_until?.getTime();
  if (!moves && buckets.length === 0) return null;
  return { target, buckets, evaluatedUntil: plan.evaluatedUntil };
}

function judgedBucket(bucket: Bucket, stats: BucketStats, { value, verdict }: { value: number | null; verdict: Verdict }, early: boolean): JudgedBucket {
  return { start: bucket.start, end: bucket.end, value, count: stats.count, min: stats.min, max: stats.max, verdict, early };
}
