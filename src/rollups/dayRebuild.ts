// Re-buckets an event's day rollup after its timezone changed: the day rows are deleted and
// rebuilt from its minute rows, grouped by local midnight of the new timezone. Callers run
// it between two ingest inserts (LogIngestor.runExclusive), so no row is counted twice.
//
// Minute rollups live 90 days. An event created in the last 60 days has all its data there
// (logs are accepted at most 30 days late) and is rebuilt whole; an older one is rebuilt
// from its first day row within the last 89 days, and older days keep their buckets.
//
// The rebuild is not deduplicated: the rollup table keeps recent block ids (migrations 0004,
// 0005), and a rebuild identical to an earlier one must still be written after the DELETE.
import type { ClickHouseStore } from '../stores/clickhouse.js';
import { ROLLUP_TABLE, SERIES_ROLLUP_TABLE } from './tables.js';

/** Every column of the rollup table, named so that a column added to the table cannot shift the others. */
export const DAY_ROW_COLUMNS = [
  'workspace_id',
  'event_id',
  'period',
  'bucket',
  'agent',
  'event',
  'count',
  'value',
  'squares',
  'min',
  'max',
  'variance',
  'quantiles',
] as const;

/**
 * Day rows of one event ({ws}, {event}, local days of {tz}) rebuilt from its minute rows
 * that pass `minuteFilter`, in DAY_ROW_COLUMNS order and names.
 */
export const dayRowsFromMinutes = (minuteFilter: string) => `
  SELECT m.workspace_id AS workspace_id, m.event_id AS event_id, 'day' AS period,
         toDateTime(toStartOfDay(m.bucket, {tz:String}), 'UTC') AS bucket,
         anyLast(m.agent) AS agent, anyLast(m.event) AS event,
         sum(m.count) AS count, sum(m.value) AS value, sum(m.squares) AS squares, min(m.min) AS min, max(m.max) AS max,
         varSampStableMergeState(m.variance) AS variance,
         quantilesTDigestMergeState(0.95, 0.99)(m.quantiles) AS quantiles
  FROM ${ROLLUP_TABLE} AS m
  WHERE m.workspace_id = {ws:String} AND m.event_id = {event:UUID} AND m.period = 'minute' AND ${minuteFilter}
  GROUP BY m.workspace_id, m.event_id, bucket`;

/** Day rows of one event rebuilt from its minute rows since {since} (Unix seconds). */
export const DAY_ROWS_FROM_MINUTES = dayRowsFromMinutes('m.bucket >= fromUnixTimestamp({since:UInt32})');

const FULL_REBUILD_MAX_EVENT_AGE_MS = 60 * 86_400_000;
const PARTIAL_REBUILD_DAYS = 89;

export async function rebucketDayRollups(
  clickhouse: ClickHouseStore,
  workspaceId: string,
  eventId: string,
  eventCreatedAt: Date,
  timezone: string,
): Promise<void> {
  const params = { ws: workspaceId, event: eventId, tz: timezone, since: 0, days: PARTIAL_REBUILD_DAYS };
  if (Date.now() - eventCreatedAt.getTime() > FULL_REBUILD_MAX_EVENT_AGE_MS) {
    // Cut at an existing day boundary, so every minute lands in exactly one day row; with no
    // recent day row there is nothing to rebuild, and older rows must not be touched.
    const result = await clickhouse.client.query({
      query: `SELECT toUnixTimestamp(minOrNull(bucket)) AS since FROM ${ROLLUP_TABLE}
              WHERE workspace_id = {ws:String} AND event_id = {event:UUID} AND period = 'day' AND bucket >= now() - toIntervalDay({days:UInt32})`,
      query_params: params,
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ since: number | null }>();
    params.since = row?.since ?? Math.floor(Date.now() / 1000) + 2 * 86_400;
  }
  await clickhouse.client.command({
    query: `DELETE FROM ${ROLLUP_TABLE}
            WHERE workspace_id = {ws:String} AND event_id = {event:UUID} AND period = 'day' AND bucket >= fromUnixTimestamp({since:UInt32})`,
    query_params: params,
  });
  await clickhouse.client.command({
    query: `INSERT INTO ${ROLLUP_TABLE} (${DAY_ROW_COLUMNS.join(', ')}) SETTINGS insert_deduplicate = 0 ${DAY_ROWS_FROM_MINUTES}`,
    query_params: params,
  });
  // The definition's series day rows (its agent's series of a name with dimensions), from its series minute rows the same way.
  await clickhouse.client.command({
    query: `DELETE FROM ${SERIES_ROLLUP_TABLE}
            WHERE workspace_id = {ws:String} AND event_id = {event:UUID} AND period = 'day' AND bucket >= fromUnixTimestamp({since:UInt32})`,
    query_params: params,
  });
  await clickhouse.client.command({
    query: `INSERT INTO ${SERIES_ROLLUP_TABLE} (workspace_id, event, version, origin, period, bucket, agent, labels, event_id, count, value, squares, min, max, variance, quantiles)
            SETTINGS insert_deduplicate = 0
            SELECT m.workspace_id AS workspace_id, m.event AS event, m.version AS version, m.origin AS origin, 'day' AS period,
                   toDateTime(toStartOfDay(m.bucket, {tz:String}), 'UTC') AS bucket, m.agent AS agent, m.labels AS labels, anyLast(m.event_id) AS event_id,
                   sum(m.count) AS count, sum(m.value) AS value, sum(m.squares) AS squares, min(m.min) AS min, max(m.max) AS max,
                   varSampStableMergeState(m.variance) AS variance, quantilesTDigestMergeState(0.95, 0.99)(m.quantiles) AS quantiles
            FROM ${SERIES_ROLLUP_TABLE} AS m
            WHERE m.workspace_id = {ws:String} AND m.event_id = {event:UUID} AND m.period = 'minute' AND m.bucket >= fromUnixTimestamp({since:UInt32})
            GROUP BY workspace_id, event, version, origin, bucket, agent, labels`,
    query_params: params,
  });
}
