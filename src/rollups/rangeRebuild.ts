// Rebuilds the rollups of an event over a stretch of time from the raw rows in `logs`: the
// repair after the engine itself crashed during an insert. A non-replicated MergeTree writes
// an insert's block id to its deduplication log just before it commits the part; killed in
// between, it keeps the id without the part, and the same block inserted again (same
// insert_deduplication_token) is skipped by that table for good. Only the block that was
// being inserted can be affected, so the journal writer calls this for the stretches that
// block touched, after inserting it again and before moving on (src/ingest/journalWriter.ts).
//
// Minute and hour rows (of the one rollup table, tables.ts) are deleted and rebuilt from logs,
// as their materialized views build them; day rows from the rebuilt minutes, grouped by local midnight of the event's timezone
// now (as a timezone change re-buckets them, dayRebuild.ts). A crash during the rebuild
// leaves the block pending, and the next start rebuilds again.
import type { ClickHouseStore } from '../stores/clickhouse.js';
import { localDayStart } from '../time/localDay.js';
import { DAY_ROW_COLUMNS, dayRowsFromMinutes } from './dayRebuild.js';
import type { Period } from './model.js';
import { ROLLUP_TABLE, SERIES_ROLLUP_TABLE } from './tables.js';

/** One event's stretch of records: occurred_at from `fromMs` to `toMs`, both included. */
export interface RollupStretch {
  readonly workspaceId: string;
  readonly eventId: string;
  readonly fromMs: number;
  readonly toMs: number;
  /** The event's timezone now, for its day buckets. */
  readonly timezone: string;
}

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/**
 * Rollup rows of a period built from logs as the views do, for buckets [from, to) of `bucket`:
 * ordinary records, then summary records (schema/clickhouse/0006_summary_rows.sql).
 */
const rowsFromLogs = (bucket: string) => `
  SELECT l.workspace_id AS workspace_id, l.event_id AS event_id, {period:String} AS period, ${bucket} AS bucket,
         anyLast(l.agent) AS agent, anyLast(l.event) AS event,
         count() AS count, sum(l.value) AS value, sum(l.value * l.value) AS squares, min(l.value) AS min, max(l.value) AS max,
         varSampStableState(l.value) AS variance,
         quantilesTDigestState(0.95, 0.99)(l.value) AS quantiles
  FROM logs AS l
  WHERE l.workspace_id = {ws:String} AND l.event_id = {event:UUID} AND empty(l.sketch_means)
    AND l.occurred_at >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND l.occurred_at < fromUnixTimestamp64Milli({to:Int64}, 'UTC')
  GROUP BY workspace_id, event_id, bucket
  UNION ALL
  SELECT l.workspace_id AS workspace_id, l.event_id AS event_id, {period:String} AS period, ${bucket} AS bucket,
         anyLast(l.agent) AS agent, anyLast(l.event) AS event,
         sum(l.weight) AS count, sum(l.value) AS value, sum(l.summary_squares) AS squares, min(l.summary_min) AS min, max(l.summary_max) AS max,
         varSampStableMergeState(CAST(unhex(l.summary_variance) AS AggregateFunction(varSampStable, Float64))) AS variance,
         CAST(toString(quantilesTDigestWeightedStateArray(0.95, 0.99)(l.sketch_means, l.sketch_weights))
              AS AggregateFunction(quantilesTDigest(0.95, 0.99), Float64)) AS quantiles
  FROM logs AS l
  WHERE l.workspace_id = {ws:String} AND l.event_id = {event:UUID} AND notEmpty(l.sketch_means)
    AND l.occurred_at >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND l.occurred_at < fromUnixTimestamp64Milli({to:Int64}, 'UTC')
  GROUP BY workspace_id, event_id, bucket`;

/** Day rows rebuilt from the minute rows of buckets [from, to). */
const dayRowsOfRange = dayRowsFromMinutes(
  "m.bucket >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND m.bucket < fromUnixTimestamp64Milli({to:Int64}, 'UTC')",
);

async function replace(clickhouse: ClickHouseStore, period: Period, rows: string, params: Record<string, unknown>): Promise<void> {
  const table = ROLLUP_TABLE;
  params = { ...params, period };
  await clickhouse.client.command({
    query: `DELETE FROM ${table}
            WHERE workspace_id = {ws:String} AND event_id = {event:UUID} AND period = {period:String}
              AND bucket >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND bucket < fromUnixTimestamp64Milli({to:Int64}, 'UTC')`,
    query_params: params,
  });
  // Not deduplicated: a rebuild identical to an earlier insert must still be written after the DELETE.
  await clickhouse.client.command({
    query: `INSERT INTO ${table} (${DAY_ROW_COLUMNS.join(', ')}) SETTINGS insert_deduplicate = 0 ${rows}`,
    query_params: params,
  });
}

/**
 * Series rollup rows of a period built from logs as the series views do (schema/clickhouse/
 * 0007_series_rollups.sql), for the labelled rows of one event definition in [from, to) of
 * `range` (occurred_at, or day_start for days).
 */
const seriesRowsFromLogs = (bucket: string, range: string) =>
  ['empty', 'notEmpty']
    .map(
      (kind) => `
  SELECT l.workspace_id AS workspace_id, l.event AS event, l.dims_version AS version, 'ingest' AS origin, {period:String} AS period,
         ${bucket} AS bucket, l.agent AS agent, l.labels AS labels, anyLast(l.event_id) AS event_id,
         ${
           kind === 'empty'
             ? `count() AS count, sum(l.value) AS value, sum(l.value * l.value) AS squares, min(l.value) AS min, max(l.value) AS max,
         varSampStableState(l.value) AS variance, quantilesTDigestState(0.95, 0.99)(l.value) AS quantiles`
             : `sum(l.weight) AS count, sum(l.value) AS value, sum(l.summary_squares) AS squares, min(l.summary_min) AS min, max(l.summary_max) AS max,
         varSampStableMergeState(CAST(unhex(l.summary_variance) AS AggregateFunction(varSampStable, Float64))) AS variance,
         CAST(toString(quantilesTDigestWeightedStateArray(0.95, 0.99)(l.sketch_means, l.sketch_weights))
              AS AggregateFunction(quantilesTDigest(0.95, 0.99), Float64)) AS quantiles`
         }
  FROM logs AS l
  WHERE l.workspace_id = {ws:String} AND l.event_id = {event:UUID} AND notEmpty(l.labels) AND ${kind}(l.sketch_means)
    AND ${range} >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND ${range} < fromUnixTimestamp64Milli({to:Int64}, 'UTC')
  GROUP BY workspace_id, event, version, bucket, agent, labels`,
    )
    .join('\n  UNION ALL');

const SERIES_COLUMNS = 'workspace_id, event, version, origin, period, bucket, agent, labels, event_id, count, value, squares, min, max, variance, quantiles';

/** Replaces the rows the series views wrote for one definition's records in a bucket range (a backfill's rows stay: they come from other rows of logs). */
async function replaceSeries(clickhouse: ClickHouseStore, period: Period, rows: string, params: Record<string, unknown>): Promise<void> {
  params = { ...params, period };
  await clickhouse.client.command({
    query: `DELETE FROM ${SERIES_ROLLUP_TABLE}
            WHERE workspace_id = {ws:String} AND event_id = {event:UUID} AND period = {period:String} AND origin = 'ingest'
              AND bucket >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND bucket < fromUnixTimestamp64Milli({to:Int64}, 'UTC')`,
    query_params: params,
  });
  await clickhouse.client.command({
    query: `INSERT INTO ${SERIES_ROLLUP_TABLE} (${SERIES_COLUMNS}) SETTINGS insert_deduplicate = 0 ${rows}`,
    query_params: params,
  });
}

/** Makes the minute, hour and day rollups (and series rollups) of each stretch agree with `logs` again. */
export async function rebuildRollupStretches(clickhouse: ClickHouseStore, stretches: readonly RollupStretch[]): Promise<void> {
  for (const s of stretches) {
    const key = { ws: s.workspaceId, event: s.eventId };
    const minutes = { from: Math.floor(s.fromMs / MINUTE_MS) * MINUTE_MS, to: Math.floor(s.toMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS };
    const hours = { from: Math.floor(s.fromMs / HOUR_MS) * HOUR_MS, to: Math.floor(s.toMs / HOUR_MS) * HOUR_MS + HOUR_MS };
    const lastDay = localDayStart(s.timezone, s.toMs);
    // A local day lasts 23 to 25 hours: 26 hours after its start lies in the next one.
    const days = { from: localDayStart(s.timezone, s.fromMs), to: localDayStart(s.timezone, lastDay + 26 * HOUR_MS) };
    await replace(clickhouse, 'minute', rowsFromLogs(`toStartOfMinute(toDateTime(l.occurred_at, 'UTC'))`), { ...key, ...minutes });
    await replace(clickhouse, 'hour', rowsFromLogs(`toStartOfHour(toDateTime(l.occurred_at, 'UTC'))`), { ...key, ...hours });
    // Every minute of those days is in the minute rollup (90 days, records at most 30 days late), exact again now.
    await replace(clickhouse, 'day', dayRowsOfRange, { ...key, ...days, tz: s.timezone });
    // The series rollups of the same records: their day is the row's own day_start.
    await replaceSeries(clickhouse, 'minute', seriesRowsFromLogs("toStartOfMinute(toDateTime(l.occurred_at, 'UTC'))", 'l.occurred_at'), { ...key, ...minutes });
    await replaceSeries(clickhouse, 'hour', seriesRowsFromLogs("toStartOfHour(toDateTime(l.occurred_at, 'UTC'))", 'l.occurred_at'), { ...key, ...hours });
    await replaceSeries(clickhouse, 'day', seriesRowsFromLogs('l.day_start', 'l.day_start'), { ...key, ...days });
  }
}
