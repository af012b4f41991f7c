// From a fleet policy's plan and its groups' numbers to each group's judged buckets
// (docs/api.md, Fleet policies). The groups judged: those with records in a bucket due,
// those kept (a run, an empty run, an alert's cover), those with an open alert, and those
// that had records in the last judged bucket and have none now (they went silent: a group
// is known from its first record in a bucket the policy judged). Every rule of a policy on
// one definition applies per group, through the same verdicts (verdict.ts).
import { labelsFingerprint, type Labels } from '../../labels/labels.js';
import { bucketAt, type Bucket } from '../../rollups/buckets.js';
import type { GroupBuckets, GroupSieve, GroupStatsRequest, PolicyGroupStats } from '../../rollups/groupStats.js';
import { EMPTY_BUCKET, type BucketStats } from '../../rollups/model.js';
import { likePatternOf, filterValues } from '../../policies/fleet.js';
import type { TimeRange } from '../../time/range.js';
import type { AlertSubject, JudgedBucket, RunState } from '../alertChanges.js';
import type { DueBucket } from '../dueBuckets.js';
import { judgeBucket } from '../verdict.js';
import { groupLabels, groupValue, readsSeries, type FleetTarget, type GroupState } from './fleetTargets.js';

/** Group value → its labels' fingerprint: the same agents come back every cycle, and the fingerprint costs a BigInt step a byte. */
const fingerprints = new Map<string, string>();
const MAX_FINGERPRINTS = 200_000;

function groupKeyOf(byAgent: boolean, value: string, labels: Labels): string {
  const memo = `${byAgent ? 'a' : ''}\u0000${value}`;
  let key = fingerprints.get(memo);
  if (key === undefined) {
    key = labelsFingerprint(labels);
    if (fingerprints.size >= MAX_FINGERPRINTS) fingerprints.clear();
    fingerprints.set(memo, key);
  }
  return key;
}

/** A group of a fleet policy with what its buckets brought, ready for the alert state machine. */
export interface GroupOutcome {
  readonly key: string;
  readonly labels: Labels;
  readonly eventId: string | null;
  readonly buckets: readonly JudgedBucket[];
  /** The run the buckets continue when not the group's kept one (a manual evaluation's, or a fresh one after skipped buckets). */
  readonly run: Omit<RunState, 'alertedUntil'> | null;
}

/** How long a silent group stays known (docs/api.md, Fleet policies). */
export const FORGET_AFTER_MS = 24 * 3_600_000;

/** The bucket ending at the policy's progress: the last one it judged (null before the first). */
export function lastJudgedBucket(target: Pick<FleetTarget, 'period' | 'timezone' | 'evaluated_until'>): Bucket | null {
  const until = target.evaluated_until?.getTime();
  return until === undefined ? null : bucketAt(target.period, target.timezone, until - 1);
}

/**
 * What lets the engine leave out the groups that cannot change (GroupSieve): for a rule
 * judged on its bucket alone (no comparison with another bucket).
 */
function sieveOf(target: FleetTarget, due: readonly DueBucket[]): GroupSieve | undefined {
  if (target.compare_to !== null) return undefined;
  const closed = due.filter((d) => !d.open);
  const open = due.filter((d) => d.open);
  const span = (ds: readonly DueBucket[]) => (ds.length === 0 ? { from: 0, to: 0 } : { from: ds[0]!.bucket.start, to: ds[ds.length - 1]!.bucket.end });
  const kept = new Set([...target.groups.values(), ...target.openGroups.values()].map((g) => groupValue(target, g.labels)));
  return {
    closed: span(closed),
    // A group with records in fewer closed buckets went silent in one: returned where silence counts.
    closedCount: silenceMatters(target) ? closed.length : 0,
    // The open bucket and the current one are consecutive.
    open: span(open),
    aggregate: target.aggregate,
    condition: target.condition,
    threshold: target.threshold,
    kept: [...kept],
  };
}

/**
 * The ranges a fleet policy reads: its due buckets, the buckets they are compared with, and
 * the last judged one; `sieved`: only the groups that may change (the worker's cycle; an
 * on-demand evaluation answers every group).
 */
export function groupStatsRequest(target: FleetTarget, due: readonly DueBucket[], lastJudged: Bucket | null, sieved = false): GroupStatsRequest {
  const ranges: TimeRange[] = [];
  if (due.length > 0) {
    ranges.push({ from: due[0]!.bucket.start, to: due[due.length - 1]!.bucket.end });
    for (const d of due) if (d.comparison) ranges.push({ from: d.comparison.start, to: d.comparison.end });
    if (lastJudged) ranges.push({ from: lastJudged.start, to: lastJudged.end });
  }
  const filter = filterValues(target.filter);
  const agentsIn = filter.get('agent') ?? [];
  const series = readsSeries(target);
  return {
    workspaceId: target.workspace_id,
    event: target.event,
    byAgent: target.group_by.includes('agent'),
    agentLikes: target.agents.map(likePatternOf),
    agentsIn,
    ranges,
    // A series read is not sieved: its group values are the engine's JSON text, which the kept groups' labels are not.
    ...(sieved && due.length > 0 && !series ? { sieve: sieveOf(target, due) } : {}),
    ...(series
      ? {
          series: {
            version: target.dims_version,
            groupBy: target.group_by,
            filter: [...filter].filter(([key]) => key !== 'agent').map(([key, values]) => ({ key, values })),
          },
        }
      : {}),
  };
}

/** What an alert of the group copies of the policy and the group. */
export function groupSubject(target: FleetTarget, labels: Labels, eventId: string | null): AlertSubject {
  return { ...target, event_id: eventId, agent: labels.agent ?? '', event: target.event, labels };
}

const statsAt = (group: GroupBuckets | undefined, bucket: Bucket): BucketStats => group?.buckets.get(bucket.start) ?? EMPTY_BUCKET;

/** The group's verdict on each due bucket; a bucket whose groups were truncated, and that did not list this one, is not judged for it. */
function judgeGroup(
  target: FleetTarget,
  due: readonly DueBucket[],
  group: GroupBuckets | undefined,
  truncated: PolicyGroupStats['truncated'],
  since: number,
): JudgedBucket[] {
  const judged: JudgedBucket[] = [];
  for (const d of due) {
    // Before its first record a new group is not known: its buckets are not judged (not even as empty).
    if (d.bucket.start < since) continue;
    if (truncated.has(d.bucket.start) && !group?.buckets.has(d.bucket.start)) continue;
    const b = judgeBucket(target, {
      bucket: d.bucket,
      stats: statsAt(group, d.bucket),
      comparison: d.comparison && { bucket: d.comparison, stats: statsAt(group, d.comparison) },
      open: d.open,
      ...(d.ahead ? { ahead: true } : {}),
    });
    // An open bucket counts only where it breaches for good (an early breach).
    if (!b.early || b.verdict === 'breach') judged.push(b);
  }
  return judged;
}

/** Every group of the policy to judge now, with its judged buckets. */
export function judgeGroups(
  target: FleetTarget,
  due: readonly DueBucket[],
  stats: PolicyGroupStats,
  lastJudged: Bucket | null,
  skipped: boolean,
): GroupOutcome[] {
  const candidates = new Map<string, { labels: Labels; eventId: string | null; data: GroupBuckets | undefined; since: number }>();
  const dueStarts = new Set(due.map((d) => d.bucket.start));
  for (const [value, data] of stats.groups) {
    // Known from the last judged bucket, or from its first record in a bucket due.
    let since = Infinity;
    for (const [start, s] of data.buckets) {
      if (s.count === 0) continue;
      if (start === lastJudged?.start) since = -Infinity;
      else if (dueStarts.has(start)) since = Math.min(since, start);
    }
    if (since === Infinity) continue;
    const labels = groupLabels(target, value);
    const key = groupKeyOf(target.group_by.includes('agent'), value, labels);
    const known = target.groups.has(key) || target.openGroups.has(key);
    candidates.set(key, { labels, eventId: data.eventId, data, since: known ? -Infinity : since });
  }
  const also = (key: string, g: Pick<GroupState, 'labels' | 'eventId'>) => {
    if (!candidates.has(key)) candidates.set(key, { labels: g.labels, eventId: g.eventId, data: undefined, since: -Infinity });
  };
  for (const [key, g] of target.groups) also(key, g);
  for (const [key, g] of target.openGroups) also(key, g);
  const fresh = skipped ? { run: 0, runStart: null, runPeak: null, silentSince: null } : null;
  return [...candidates].map(([key, c]) => ({
    key,
    labels: c.labels,
    eventId: c.eventId,
    buckets: judgeGroup(target, due, c.data, stats.truncated, c.since),
    run: fresh,
  }));
}

/** Groups beyond POLICY_MAX_GROUPS in the buckets due, added up. */
export const truncatedGroups = (stats: PolicyGroupStats, due: readonly DueBucket[]): number =>
  due.reduce((n, d) => n + (stats.truncated.get(d.bucket.start) ?? 0), 0);

/**
 * Whether a group's silence can change anything under the rule: an empty bucket is a count or
 * sum of 0, or `no_data` gives it a verdict. Otherwise an empty bucket has no verdict, and a
 * silent group without an open alert (whose forgetting would resolve it) is as a fresh one.
 */
export const silenceMatters = (rule: Pick<FleetTarget, 'aggregate' | 'no_data'>): boolean =>
  rule.aggregate === 'count' || rule.aggregate === 'sum' || rule.no_data !== 'no_verdict';

/**
 * A state no different from the fresh one for every bucket after `until`: no run, no empty
 * run that counts (`silence`: silenceMatters, or an open alert), and no alert covering a
 * bucket not yet judged (alertChanges.ts, nextStep). Such a group needs no row.
 */
export const isFresh = (s: RunState, until: number | null, silence: boolean): boolean =>
  s.run === 0 && (s.silentSince === null || !silence) && (s.alertedUntil === null || (until !== null && s.alertedUntil <= until));

/** Whether a silent group is forgotten once the buckets up to `until` are judged. */
export const isForgotten = (s: RunState, until: number): boolean => s.silentSince !== null && until - s.silentSince >= FORGET_AFTER_MS;
