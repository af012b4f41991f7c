// A fleet policy's backtest (docs/api.md, Backtest): each group's alerts over the stored
// rollups, with every rule applied per group, from one ClickHouse query for all of them. A
// group is judged from its first record in the range, and forgotten (its open alert resolved)
// 24 hours after its last, as the worker would; nothing is stored or sent.
import { readGroupStats } from '../../rollups/groupStats.js';
import { EMPTY_BUCKET, type BucketStats } from '../../rollups/model.js';
import type { ClickHouseStore } from '../../stores/clickhouse.js';
import { offsetAt } from '../../time/zonedTime.js';
import type { JudgedBucket } from '../alertChanges.js';
import { backtestBuckets, replay, type BacktestAlert, type BacktestResult } from '../backtest.js';
import type { DueBucket } from '../dueBuckets.js';
import { judgeBucket } from '../verdict.js';
import { groupLabels, type FleetTarget } from './fleetTargets.js';
import { FORGET_AFTER_MS, groupStatsRequest, groupSubject } from './groupJudging.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** The group's judged buckets from its first record on; a bucket truncated without it is passed over. */
function* judgedFromFirstRecord(
  target: FleetTarget,
  due: readonly DueBucket[],
  buckets: ReadonlyMap<number, BucketStats>,
  truncated: ReadonlyMap<number, number>,
): Generator<JudgedBucket> {
  let known = false;
  for (const d of due) {
    const stats = buckets.get(d.bucket.start) ?? EMPTY_BUCKET;
    known ||= stats.count > 0;
    if (!known || (truncated.has(d.bucket.start) && !buckets.has(d.bucket.start))) continue;
    const comparison = d.comparison && { bucket: d.comparison, stats: buckets.get(d.comparison.start) ?? EMPTY_BUCKET };
    yield judgeBucket(target, { bucket: d.bucket, stats, comparison, open: false });
  }
}

export async function backtestFleet(
  clickhouse: ClickHouseStore,
  target: FleetTarget,
  range: { from: number; to: number },
  closedBy: number,
  maxGroups: number,
): Promise<BacktestResult> {
  const due = backtestBuckets(target, range, closedBy);
  const [stats] = await readGroupStats(
    clickhouse,
    {
      period: target.period,
      timezone: target.timezone,
      quantiles: target.aggregate === 'p95_est' || target.aggregate === 'p99_est',
      maxGroups,
      requests: [groupStatsRequest(target, due, null)],
    },
    offsetAt,
  );
  const alerts: BacktestAlert[] = [];
  for (const [value, group] of stats!.groups) {
    const labels = groupLabels(target, value);
    const judged = judgedFromFirstRecord(target, due, group.buckets, stats!.truncated);
    alerts.push(...replay(groupSubject(target, labels, group.eventId), judged, FORGET_AFTER_MS).map((a) => ({ labels, ...a })));
  }
  alerts.sort((a, b) => a.triggered_bucket_start.localeCompare(b.triggered_bucket_start) || JSON.stringify(a.labels).localeCompare(JSON.stringify(b.labels)));
  return { from: iso(range.from), to: iso(range.to), buckets_evaluated: due.length, alerts };
}
