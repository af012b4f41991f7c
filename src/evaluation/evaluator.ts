// Policy evaluation without HTTP: a cycle over every enabled policy (the worker) and the
// evaluation of one policy's last closed bucket (POST /v1.0/policies/:id/evaluate). Both
// read bucket numbers from ClickHouse first (the buckets due and the buckets they are
// compared with, in one query per period) and then apply the verdicts in short Postgres
// transactions; `now` is injectable so tests need not wait for real minutes.
import { findDimension } from '../dimensions/store.js';
import { runOver } from './alertChanges.js';
import type { Alert } from '../alerts/model.js';
import { writeDueReminders } from '../alerts/reminders.js';
import { getEventDefinition } from '../events/store.js';
import { runUnitTest, type Expectation, type TestSeries, type UnitTestResult } from './unitTests.js';
import { bucketAt, lastClosedBucket, type Bucket } from '../rollups/buckets.js';
import { statsOf, type BucketStatsTable } from '../rollups/bucketStats.js';
import type { BucketStats, Period } from '../rollups/model.js';
import { requireSubject, requireValidRule, withDefaults, type NewPolicy } from '../policies/operations.js';
import { TimezoneCatalog } from '../events/timezones.js';
import { backtestFleet } from './fleet/fleetBacktest.js';
import {
  evaluateFleetLastClosedBucket,
  evaluateFleetTargets,
  type FleetCycleReport,
  type FleetDeps,
  type FleetManualEvaluation,
} from './fleet/fleetEvaluation.js';
import { loadEnabledFleetTargets, loadFleetTarget, type FleetTarget } from './fleet/fleetTargets.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { PostgresStore } from '../stores/postgres.js';
import { applyOutcomes, closedBucketsOf, isSettled, settle, SettledProgressWriter, type PolicyOutcome } from './applyOutcomes.js';
import { backtest, type BacktestPolicy, type BacktestResult } from './backtest.js';
import { dueBucket, dueBucketsOf, judgeAllDue, judgeDue, readDueStats, readPeriodsDueStats, type DueBucket, type PeriodDue } from './dueBuckets.js';
import { plannerAt, type Plan } from './planner.js';
import { TargetCache } from './targetCache.js';
import { mayFireEarly } from './verdict.js';
import { loadEnabledTargets, loadTarget, type EvaluationTarget } from './targets.js';

export interface EvaluatorDeps {
  readonly postgres: PostgresStore;
  readonly clickhouse: ClickHouseStore;
  /** EVAL_GRACE_MS: a bucket is evaluated this long after it closed. */
  readonly graceMs: number;
  /** The clock, ms since the epoch. */
  readonly now?: () => number;
  /** POLICY_MAX_GROUPS: groups a fleet policy judges a bucket (default 10,000). */
  readonly maxGroups?: number;
  /** The timezones a fleet policy may name (default: Node's). */
  readonly timezones?: TimezoneCatalog;
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
  /** alert.reminder notifications written. */
  readonly reminders: number;
  /** Fleet policies' groups beyond POLICY_MAX_GROUPS in the buckets judged. */
  readonly groupsTruncated: number;
}

export interface EventsReport extends CycleReport {
  /** The policies evaluated. */
  readonly policyIds: readonly string[];
  /** Event → when an open bucket of its policies leaves its grace time (ms), to be evaluated again then. */
  readonly recheckAt: ReadonlyMap<string, number>;
}

export interface ManualEvaluation {
  readonly kind: 'definition';
  readonly policy_id: string;
  readonly bucket: Bucket;
  readonly stats: BucketStats;
  readonly value: number | null;
  readonly breached: boolean;
  readonly alert: Alert | null;
}

/**
 * dueBucketsOf for plans that share their buckets (plannerAt): computed once per shared
 * bucket list, comparison (compare_to, and the timezone its local days are counted in),
 * whether the rule may fire early and whether the current bucket may.
 */
function dueBucketsMemo(): (plan: Plan) => readonly DueBucket[] {
  const memo = new WeakMap<readonly Bucket[], Map<string, readonly DueBucket[]>>();
  return (plan) => {
    const { compare_to, timezone } = plan.target;
    const comparison = compare_to === null ? '' : `${compare_to}\u0000${compare_to === 'previous_bucket' && plan.target.period !== 'day' ? '' : timezone}`;
    const key = `${comparison}\u0000${mayFireEarly(plan.target) ? 'early' : ''}\u0000${plan.current === null ? '' : 'current'}`;
    let byComparison = memo.get(plan.closed);
    if (!byComparison) {
      byComparison = new Map();
      memo.set(plan.closed, byComparison);
    }
    let due = byComparison.get(key);
    if (!due) {
      due = dueBucketsOf(plan);
      byComparison.set(key, due);
    }
    return due;
  };
}

/** How an evaluation reads its periods' bucket numbers (PolicyEvaluator.readStats). */
type StatsReads = 'one period at a time' | 'all periods at once';

/** The id a backtested draft's alerts would carry: it is never stored. */
const DRAFT_POLICY_ID = '00000000-0000-0000-0000-000000000000';

export class PolicyEvaluator {
  private readonly now: () => number;
  /** The enabled policies as the last cycle read them, with the progress written since (targetCache.ts). */
  readonly targets = new TargetCache();

  private readonly fleet: FleetDeps;
  private readonly timezones: TimezoneCatalog;

  constructor(private readonly deps: EvaluatorDeps) {
    this.now = deps.now ?? Date.now;
    this.fleet = { ...deps, maxGroups: deps.maxGroups ?? 10_000 };
    this.timezones = deps.timezones ?? TimezoneCatalog.ofIntl();
  }

  /**
   * Evaluates every due bucket of every enabled policy, one ClickHouse query per period in use
   * for the policies on one definition and one per period for the fleet policies, then writes
   * due reminders.
   */
  async evaluateDuePolicies(): Promise<CycleReport> {
    const now = this.now();
    const report = await this.evaluateTargets(await this.targets.enabledTargets(this.deps.postgres), now, 'one period at a time');
    const fleet = await evaluateFleetTargets(this.fleet, await loadEnabledFleetTargets(this.deps.postgres), now);
    const reminders = await this.deps.postgres.transaction((tx) => writeDueReminders(tx, new Date(now)));
    return { ...withFleet(report, fleet), reminders };
  }

  /**
   * The same over the enabled policies of these events only (evaluation driven by their new
   * records): every bucket closed since each policy's last evaluation, and the open one where
   * it can fire early, every period's read in one ClickHouse query. Reminders are left to the cycle.
   */
  async evaluateEvents(eventIds: readonly string[]): Promise<EventsReport> {
    const now = this.now();
    const targets = await loadEnabledTargets(this.deps.postgres, eventIds);
    const report = await this.evaluateTargets(targets, now, 'all periods at once');
    const fleetTargets = await loadEnabledFleetTargets(this.deps.postgres, eventIds);
    const fleet = await evaluateFleetTargets(this.fleet, fleetTargets, now);
    // An open bucket still in its grace time is judged as closed once that ends: its events are evaluated again then.
    const recheckAt = new Map<string, number>();
    for (const plan of report.plans) {
      if (plan.open === null || plan.open.end > now) continue;
      const at = plan.open.end + this.deps.graceMs;
      const id = plan.target.event_id;
      recheckAt.set(id, Math.min(recheckAt.get(id) ?? at, at));
    }
    // A fleet policy watches an event name, not these definitions: each of them asks for it again.
    const fleetAt = fleet.recheckAt;
    if (fleetAt !== null) for (const id of eventIds) recheckAt.set(id, Math.min(recheckAt.get(id) ?? fleetAt, fleetAt));
    const policyIds = [...targets, ...fleetTargets].map((t) => t.policy_id);
    return { ...withFleet(report, fleet), reminders: 0, policyIds, recheckAt };
  }

  /**
   * Reads the numbers of every period's due buckets (readStats), then judges and applies one
   * period at a time: the policies whose buckets write an alert or have one open, under lock.
   * The progress of the others (most policies, most cycles) is written while a later period's
   * read is awaited and at the end, so no page waits behind it (SettledProgressWriter).
   */
  private async evaluateTargets(
    targets: readonly EvaluationTarget[],
    now: number,
    reads: StatsReads,
  ): Promise<Omit<CycleReport, 'reminders' | 'groupsTruncated'> & { plans: Plan[] }> {
    const plans = targets.map(plannerAt(now, this.deps.graceMs));
    const dueOf = dueBucketsMemo();
    const periods = [...groupByPeriod(plans).entries()].map(([period, group]) => ({
      period,
      due: group.map((plan) => ({ plan, buckets: dueOf(plan) })),
    }));
    const stats = this.readStats(
      periods.map(({ period, due }) => ({ period, policies: due.map((d) => ({ policy: d.plan.target, buckets: d.buckets })) })),
      reads,
    );
    const at = new Date(now);
    const total = { evaluations: 0, raised: 0, resolved: 0 };
    const settled = new SettledProgressWriter(this.deps.postgres, (progress) => this.targets.noteWritten(progress));
    for (const [i, { due }] of periods.entries()) {
      const table = await settled.writeUntil(stats[i]!);
      const outcomes: PolicyOutcome[] = [];
      for (const { plan, buckets } of due) {
        const outcome = outcomeOf(plan, buckets, table);
        if (!outcome) continue;
        const result = settle(outcome, at);
        if (isSettled(result)) settled.add(result);
        else outcomes.push(result);
      }
      const result = await applyOutcomes(this.deps.postgres, outcomes, at);
      this.targets.noteWritten(result.progress);
      for (const o of outcomes) if (result.latest.has(o.target.policy_id)) total.evaluations += closedBucketsOf(o);
      total.raised += result.raised;
      total.resolved += result.resolved;
    }
    total.evaluations += await settled.writeAll();
    return { policies: plans.length, ...total, skippedBuckets: plans.reduce((n, p) => n + p.skipped, 0), plans };
  }

  /**
   * Each period's bucket numbers, in the order of `due`. A cycle reads one period at a time,
   * each read starting as soon as the one before has answered: the later periods are read
   * (ClickHouse answers off the main thread) while the earlier ones are judged and written to
   * Postgres, and in-process chDB, which runs the service's queries one after another, has a
   * console's rollup read wait behind one of them, not behind every period's. A data-driven
   * evaluation (the events one insert touched, mostly a few) reads every period in one query:
   * chDB's cost a query, not the rows, is most of its time (three queries took 30-50 ms of an
   * evaluation of one event's 10 policies).
   */
  private readStats(due: readonly PeriodDue[], reads: StatsReads): Promise<BucketStatsTable>[] {
    const { clickhouse } = this.deps;
    let stats: Promise<BucketStatsTable>[];
    if (reads === 'all periods at once') {
      const all = readPeriodsDueStats(clickhouse, due);
      stats = due.map(({ period }) => all.then((tables) => tables.get(period) ?? new Map()));
    } else {
      let previousRead: Promise<unknown> = Promise.resolve();
      stats = due.map(({ period, policies }) => {
        const read = previousRead.then(() => readDueStats(clickhouse, period, policies));
        previousRead = read.catch(() => undefined);
        return read;
      });
    }
    // Awaited in turn; a failure is not left unhandled while an earlier period is applied.
    for (const read of stats) read.catch(() => undefined);
    return stats;
  }

  /**
   * Evaluates the last bucket closed before `at` (default now; a later `at` is read as now)
   * and applies the verdict. Its pending run is counted over the buckets before it, read in
   * the same query, so the verdict is the one the worker would have reached; the worker's own
   * progress is not moved. A bucket still to come is never judged as closed: an empty future
   * bucket would raise `count lt 1`, and the alert would keep the worker from raising for
   * the buckets before it once resolved by hand.
   */
  async evaluateLastClosedBucket(workspaceId: string, policyId: string, at?: number): Promise<ManualEvaluation | FleetManualEvaluation> {
    const now = this.now();
    const fleet = await loadFleetTarget(this.deps.postgres, workspaceId, policyId);
    if (fleet) return { kind: 'fleet', ...(await evaluateFleetLastClosedBucket(this.fleet, fleet, at ?? now, now)) };
    const target = await loadTarget(this.deps.postgres, workspaceId, policyId);
    const { period, timezone } = target;
    const last = lastClosedBucket(period, timezone, Math.min(at ?? now, now));
    const run: Bucket[] = [last];
    while (run.length < target.pending_buckets) run.unshift(bucketAt(period, timezone, run[0]!.start - 1));
    const due = run.map((b) => dueBucket(target, b, false));
    const stats = await readDueStats(this.deps.clickhouse, period, [{ policy: target, buckets: due }]);
    const judged = due.map((d) => judgeDue(target, d, stats));
    const bucket = judged[judged.length - 1]!;
    const result = await applyOutcomes(
      this.deps.postgres,
      [{ target, buckets: [bucket], evaluatedUntil: null, run: runOver(target, judged.slice(0, -1)) }],
      new Date(now),
    );
    // The policy was deleted between the two reads.
    if (!result.latest.has(policyId)) await loadTarget(this.deps.postgres, workspaceId, policyId);
    return {
      kind: 'definition',
      policy_id: policyId,
      bucket: last,
      stats: statsOf(stats, workspaceId, target.event_id, last.start),
      value: bucket.value,
      breached: bucket.verdict === 'breach',
      alert: result.latest.get(policyId) ?? null,
    };
  }

  /** Backtests a stored policy (enabled or not) or a policy not created yet, over the buckets in [from, to) that have closed. */
  async backtest(
    workspaceId: string,
    policy: { readonly policyId: string } | { readonly draft: NewPolicy },
    range: { from: number; to: number },
  ): Promise<BacktestResult> {
    const closedBy = this.now() - this.deps.graceMs;
    const subject =
      'policyId' in policy
        ? ((await loadFleetTarget(this.deps.postgres, workspaceId, policy.policyId)) ?? (await loadTarget(this.deps.postgres, workspaceId, policy.policyId)))
        : await this.draftPolicy(workspaceId, policy.draft);
    if ('openGroups' in subject) return backtestFleet(this.deps.clickhouse, subject, range, closedBy, this.fleet.maxGroups);
    return backtest(this.deps.clickhouse, subject, range, closedBy);
  }

  /**
   * Runs a policy unit test (unitTests.ts): the draft policy, checked as a create would be,
   * judged on the given series only. Nothing is stored, nothing is sent.
   */
  async unitTest(workspaceId: string, draft: NewPolicy, series: readonly TestSeries[], expectations: readonly Expectation[]): Promise<UnitTestResult> {
    const subject = await this.draftPolicy(workspaceId, draft);
    if ('openGroups' in subject) {
      const { agents, filter, group_by, ...rest } = subject;
      const policy = { ...rest, event_id: DRAFT_POLICY_ID, agent: '', labels: {} } as unknown as BacktestPolicy;
      return runUnitTest(this.deps.clickhouse, { kind: 'fleet', policy, agents, filter, groupBy: group_by }, series, expectations);
    }
    return runUnitTest(this.deps.clickhouse, { kind: 'single', policy: subject }, series, expectations);
  }

  /** A policy body as the backtest reads it: checked as a create would be, never stored. */
  private async draftPolicy(workspaceId: string, draft: NewPolicy): Promise<BacktestPolicy | FleetTarget> {
    const fields = withDefaults(draft);
    requireValidRule(fields, this.timezones);
    await requireSubject(this.deps.postgres, workspaceId, fields);
    const policy = { ...fields, workspace_id: workspaceId, policy_id: DRAFT_POLICY_ID };
    if (fields.event !== null) {
      const fleet = { ...policy, event: fields.event, timezone: fields.timezone ?? 'UTC', updated_at: new Date(0), evaluated_until: null };
      const dimsVersion = (await findDimension(this.deps.postgres, workspaceId, fields.event))?.version ?? null;
      return { ...fleet, dims_version: dimsVersion, rowVersion: '', groups: new Map(), openGroups: new Map() };
    }
    const event = (await getEventDefinition(this.deps.postgres, workspaceId, fields.event_id!))!;
    const { agents: _a, filter: _f, group_by: _g, ...rule } = policy;
    return { ...rule, event_id: event.event_id, agent: event.agent, event: event.event, labels: { agent: event.agent }, timezone: event.timezone };
  }
}

/** A cycle's report with its fleet policies' added. */
function withFleet<R extends Omit<CycleReport, 'reminders' | 'groupsTruncated'>>(report: R, fleet: FleetCycleReport): R & { groupsTruncated: number } {
  return {
    ...report,
    policies: report.policies + fleet.policies,
    evaluations: report.evaluations + fleet.evaluations,
    skippedBuckets: report.skippedBuckets + fleet.skippedBuckets,
    raised: report.raised + fleet.raised,
    resolved: report.resolved + fleet.resolved,
    groupsTruncated: fleet.groupsTruncated,
  };
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
function outcomeOf(plan: Plan, due: readonly DueBucket[], stats: BucketStatsTable): PolicyOutcome | null {
  const { target } = plan;
  // An open bucket counts only where it breaches for good (an early breach).
  const buckets = judgeAllDue(target, due, stats).filter((b) => !b.early || b.verdict === 'breach');
  const moves = plan.evaluatedUntil !== target.evaluated_until?.getTime();
  if (!moves && buckets.length === 0) return null;
  // Buckets skipped by the catch-up limit break any run: the next one starts afresh.
  const run = plan.skipped > 0 ? { run: 0, runStart: null, runPeak: null, silentSince: null } : null;
  return { target, buckets, evaluatedUntil: plan.evaluatedUntil, run };
}
