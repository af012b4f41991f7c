// Backtest (docs/api.md, Backtest): the alerts a policy would have raised over the stored
// rollups, with every rule applied, and nothing stored or sent. One ClickHouse query reads
// the bucket series and the buckets it is compared with; the rules then run over it in one
// pass with the very code the worker uses (verdict.ts for each bucket, and alertChanges.ts
// for the pending run, hysteresis and the alert lifecycle).
import { applyBucket, FRESH_RUN, type AlertCursor, type AlertSubject, type JudgedBucket } from './alertChanges.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { Labels } from '../labels/labels.js';
import { bucketAfter, bucketAt, type Bucket } from '../rollups/buckets.js';
import { dueBucket, judgeDue, readDueStats, type BucketGrid, type DueBucket, type JudgingPolicy } from './dueBuckets.js';

/** What a backtest needs of a policy: its rule, and what an alert copies. */
export type BacktestPolicy = JudgingPolicy & AlertSubject;

export interface BacktestAlert {
  /** A fleet policy's: the group the alert is of. */
  readonly labels?: Labels;
  readonly first_breach_bucket_start: string;
  readonly triggered_bucket_start: string;
  readonly resolved_bucket_start: string | null;
  readonly peak_value: number | null;
  readonly breaching_buckets: number;
}

export interface BacktestResult {
  readonly from: string;
  readonly to: string;
  readonly buckets_evaluated: number;
  readonly alerts: BacktestAlert[];
}

/** The buckets that lie wholly in [from, to) and had closed by `closedBy`, oldest first. */
export function bucketsBetween(policy: BucketGrid, from: number, to: number, closedBy: number): Bucket[] {
  const { period, timezone } = policy;
  const end = Math.min(to, closedBy);
  const buckets: Bucket[] = [];
  let bucket = bucketAt(period, timezone, from);
  if (bucket.start < from) bucket = bucketAfter(period, timezone, bucket);
  while (bucket.end <= end) {
    buckets.push(bucket);
    bucket = bucketAfter(period, timezone, bucket);
  }
  return buckets;
}

const iso = (ms: number) => new Date(ms).toISOString();

function reported(alert: NonNullable<AlertCursor['open']>, triggeredStart: number, resolvedStart: number | null): BacktestAlert {
  return {
    first_breach_bucket_start: alert.breaching_since.toISOString(),
    triggered_bucket_start: iso(triggeredStart),
    resolved_bucket_start: resolvedStart === null ? null : iso(resolvedStart),
    peak_value: alert.peak_value,
    breaching_buckets: alert.breaching_buckets,
  };
}

/**
 * The alerts one series of judged buckets raises, from no alert open and no run counted, as a
 * new policy would. `forgets` (a fleet group): a run of empty buckets this long resolves the
 * open alert and starts the series afresh, as the group is forgotten.
 */
export function replay(subject: AlertSubject, judged: Iterable<JudgedBucket>, forgets: number | null = null): BacktestAlert[] {
  const alerts: BacktestAlert[] = [];
  let cursor: AlertCursor = { state: FRESH_RUN, open: null };
  let triggeredStart = 0;
  for (const b of judged) {
    // The alert's own timestamps do not matter here: only the buckets are reported.
    const result = applyBucket(subject, cursor, b, new Date(b.end));
    if (result.step === 'raise') triggeredStart = b.start;
    if (result.step === 'resolve') alerts.push(reported(cursor.open!, triggeredStart, b.start));
    cursor = result.cursor;
    const silent = cursor.state.silentSince;
    if (forgets !== null && silent !== null && b.end - silent >= forgets) {
      if (cursor.open) alerts.push(reported(cursor.open, triggeredStart, b.start));
      cursor = { state: FRESH_RUN, open: null };
    }
  }
  if (cursor.open) alerts.push(reported(cursor.open, triggeredStart, null));
  return alerts;
}

/** A policy's due buckets over [from, to) that had closed by `closedBy`. */
export const backtestBuckets = (policy: BucketGrid, range: { from: number; to: number }, closedBy: number): DueBucket[] =>
  bucketsBetween(policy, range.from, range.to, closedBy).map((b) => dueBucket(policy, b, false));

/**
 * Runs the policy over the buckets in [from, to) that had closed, with their grace, by `now`.
 * The run starts with no alert open and no run counted, as a new policy would.
 */
export async function backtest(
  clickhouse: ClickHouseStore,
  policy: BacktestPolicy,
  range: { from: number; to: number },
  closedBy: number,
): Promise<BacktestResult> {
  const due = backtestBuckets(policy, range, closedBy);
  const stats = await readDueStats(clickhouse, policy.period, [{ policy, buckets: due }]);
  const alerts = replay(
    policy,
    due.map((d) => judgeDue(policy, d, stats)),
  );
  return { from: iso(range.from), to: iso(range.to), buckets_evaluated: due.length, alerts };
}
