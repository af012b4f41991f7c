// Fleet policies evaluated (docs/api.md, Fleet policies), as named stages: plan each policy's
// due buckets (planner.ts, as for a policy on one definition) → read every policy's groups in
// one ClickHouse query per period (and, for days, timezone), whatever their number and their
// groups' → judge each group's buckets → write what moved (fleetApply.ts). The worker's cycle,
// the evaluation driven by inserted records, the on-demand evaluation and the backtest all
// read through readGroupStats.
import type { Alert } from '../../alerts/model.js';
import { sortedLabels, type Labels } from '../../labels/labels.js';
import { bucketAt, lastClosedBucket, type Bucket } from '../../rollups/buckets.js';
import { readGroupStats, type GroupStatsRequest, type PolicyGroupStats } from '../../rollups/groupStats.js';
import { EMPTY_BUCKET, type BucketStats } from '../../rollups/model.js';
import type { ClickHouseStore } from '../../stores/clickhouse.js';
import type { PostgresStore } from '../../stores/postgres.js';
import { offsetAt } from '../../time/zonedTime.js';
import { FRESH_RUN, runOver } from '../alertChanges.js';
import { dueBucket, dueBucketsOf, type DueBucket } from '../dueBuckets.js';
import { plannerAt, type Plan } from '../planner.js';
import { applyFleetOutcomes, quietGroups, settles, writeSettledFleetProgress, type FleetOutcome } from './fleetApply.js';
import { groupValue, type FleetTarget } from './fleetTargets.js';
import { groupStatsRequest, groupSubject, judgeGroups, lastJudgedBucket, truncatedGroups, type GroupOutcome } from './groupJudging.js';

export interface FleetDeps {
  readonly postgres: PostgresStore;
  readonly clickhouse: ClickHouseStore;
  readonly graceMs: number;
  /** POLICY_MAX_GROUPS. */
  readonly maxGroups: number;
}

export interface FleetCycleReport {
  readonly policies: number;
  /** Closed buckets judged, one per group and bucket. */
  readonly evaluations: number;
  readonly skippedBuckets: number;
  readonly raised: number;
  readonly resolved: number;
  /** Groups beyond POLICY_MAX_GROUPS, added up over the buckets judged. */
  readonly groupsTruncated: number;
  /** When an open bucket of one of the policies leaves its grace time (ms), to be evaluated again then; null for none. */
  readonly recheckAt: number | null;
}

/** A policy's read: what it asks of the rollups, in one cohort's query. */
interface Read {
  readonly target: FleetTarget;
  readonly due: readonly DueBucket[];
  readonly request: GroupStatsRequest;
}

const judgesQuantiles = (t: Pick<FleetTarget, 'aggregate'>) => t.aggregate === 'p95_est' || t.aggregate === 'p99_est';

/** Stage "read": one query per period (and day timezone) for every policy of it. */
async function readCohorts(deps: FleetDeps, reads: readonly Read[]): Promise<Map<Read, PolicyGroupStats>> {
  const cohorts = new Map<string, Read[]>();
  for (const r of reads) {
    if (r.request.ranges.length === 0) continue;
    const key = r.target.period === 'day' ? `day\u0000${r.target.timezone}` : r.target.period;
    cohorts.set(key, [...(cohorts.get(key) ?? []), r]);
  }
  const stats = new Map<Read, PolicyGroupStats>();
  await Promise.all(
    [...cohorts.values()].map(async (cohort) => {
      const first = cohort[0]!.target;
      const results = await readGroupStats(
        deps.clickhouse,
        {
          period: first.period,
          timezone: first.timezone,
          quantiles: cohort.some((r) => judgesQuantiles(r.target) && r.due.some((d) => !d.open)),
          maxGroups: deps.maxGroups,
          requests: cohort.map((r) => r.request),
        },
        offsetAt,
      );
      for (const [i, r] of cohort.entries()) stats.set(r, results[i]!);
    }),
  );
  return stats;
}

const NO_GROUPS: PolicyGroupStats = { groups: new Map(), truncated: new Map() };

/** Every due bucket of every fleet policy given, judged per group and applied. */
export async function evaluateFleetTargets(deps: FleetDeps, targets: readonly FleetTarget[], now: number): Promise<FleetCycleReport> {
  // Stage "plan".
  const planner = plannerAt<FleetTarget>(now, deps.graceMs);
  const plans: Plan<FleetTarget>[] = targets.map(planner);
  const reads = plans.map((plan): Read => {
    const due = dueBucketsOf(plan);
    return { target: plan.target, due, request: groupStatsRequest(plan.target, due, lastJudgedBucket(plan.target), true) };
  });
  const stats = await readCohorts(deps, reads);
  // Stage "judge".
  const at = new Date(now);
  const outcomes: FleetOutcome[] = [];
  let groupsTruncated = 0;
  let evaluations = 0;
  for (const [i, plan] of plans.entries()) {
    const read = reads[i]!;
    const groupStats = stats.get(read) ?? NO_GROUPS;
    const groups = judgeGroups(plan.target, read.due, groupStats, lastJudgedBucket(plan.target), plan.skipped > 0);
    const moves = plan.evaluatedUntil !== plan.target.evaluated_until?.getTime();
    if (!moves && groups.every((g) => g.buckets.length === 0)) continue;
    groupsTruncated += truncatedGroups(groupStats, read.due);
    evaluations += groups.reduce((n, g) => n + g.buckets.filter((b) => !b.early).length, 0);
    const outcome: FleetOutcome = { target: plan.target, groups, evaluatedUntil: plan.evaluatedUntil };
    outcomes.push({ ...outcome, quiet: quietGroups(outcome, at) });
  }
  // Stage "write": the policies whose groups move something under lock, the others' progress alone.
  const settled = new Set(outcomes.filter(settles));
  const result = await applyFleetOutcomes(
    deps.postgres,
    outcomes.filter((o) => !settled.has(o)),
    at,
  );
  await writeSettledFleetProgress(deps.postgres, [...settled]);
  let recheckAt: number | null = null;
  for (const plan of plans) {
    if (plan.open === null || plan.open.end > now) continue;
    recheckAt = Math.min(recheckAt ?? Infinity, plan.open.end + deps.graceMs);
  }
  return {
    policies: targets.length,
    evaluations,
    skippedBuckets: plans.reduce((n, p) => n + p.skipped, 0),
    raised: result.raised,
    resolved: result.resolved,
    groupsTruncated,
    recheckAt,
  };
}

/** One group's verdict in an on-demand evaluation (POST /v1.0/policies/:id/evaluate). */
export interface GroupEvaluation {
  readonly labels: Labels;
  readonly value: number | null;
  readonly stats: BucketStats;
  readonly breached: boolean;
  readonly alert: Alert | null;
}

export interface FleetManualEvaluation {
  readonly kind: 'fleet';
  readonly policy_id: string;
  readonly bucket: Bucket;
  readonly groups: readonly GroupEvaluation[];
  readonly groupsTruncated: number;
}

/**
 * The last bucket closed before `at`, judged for every group with records in it or an open
 * alert, with each group's pending run counted over the buckets before it (read in the same
 * query), and applied; the worker's progress and runs are not moved.
 */
export async function evaluateFleetLastClosedBucket(
  deps: FleetDeps,
  target: FleetTarget,
  at: number,
  now: number,
): Promise<Omit<FleetManualEvaluation, 'kind'>> {
  const { period, timezone } = target;
  const last = lastClosedBucket(period, timezone, Math.min(at, now));
  const run: Bucket[] = [last];
  while (run.length < target.pending_buckets) run.unshift(bucketAt(period, timezone, run[0]!.start - 1));
  const due = run.map((b) => dueBucket(target, b, false));
  const read: Read = { target, due, request: groupStatsRequest(target, due, null) };
  const stats = (await readCohorts(deps, [read])).get(read) ?? NO_GROUPS;
  // Only groups with records in the bucket, or an open alert, are answered (and judged); each
  // group's numbers are looked up once (10,000 groups: every step a group is counted).
  const groups: GroupOutcome[] = [];
  const statsOf: BucketStats[] = [];
  for (const g of judgeGroups({ ...target, groups: new Map() }, due, stats, null, false)) {
    const bucket = g.buckets.find((b) => b.start === last.start);
    if (!bucket) continue;
    const bucketStats = stats.groups.get(groupValue(target, g.labels))?.buckets.get(last.start) ?? EMPTY_BUCKET;
    if (bucketStats.count === 0 && !target.openGroups.has(g.key)) continue;
    const before = g.buckets.length > 1 ? g.buckets.filter((b) => b.start < last.start) : [];
    groups.push({ ...g, buckets: [bucket], run: before.length === 0 ? FRESH_PENDING : runOver(groupSubject(target, g.labels, g.eventId), before) });
    statsOf.push(bucketStats);
  }
  const result = await applyFleetOutcomes(deps.postgres, [{ target, groups, evaluatedUntil: null }], new Date(now));
  const latest = result.latest.get(target.policy_id);
  const answered = groups.map((g, i) => ({
    labels: g.labels,
    value: g.buckets[0]!.value,
    stats: statsOf[i]!,
    breached: g.buckets[0]!.verdict === 'breach',
    alert: latest?.get(g.key) ?? null,
  }));
  const order = new Map(answered.map((g) => [g, JSON.stringify(sortedLabels(g.labels))]));
  answered.sort((a, b) => b.stats.count - a.stats.count || (order.get(a)! < order.get(b)! ? -1 : 1));
  return { policy_id: target.policy_id, bucket: last, groups: answered, groupsTruncated: stats.truncated.get(last.start) ?? 0 };
}

/** runOver of no bucket: the fresh run, without building the group's alert subject. */
const { alertedUntil: _covered, ...FRESH_PENDING } = FRESH_RUN;
