// Reads rollup buckets of one event, newest first. Buckets are combined at read time with
// the same functions the tables aggregate with, so unmerged parts never show twice.
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { Page } from '../page.js';
import type { Period, RollupBucket } from './model.js';
import { ROLLUP_TABLE } from './tables.js';

export interface BucketRange {
  /** Buckets starting at or after this instant (ms). */
  readonly from?: number;
  /** Buckets starting before this instant (ms). */
  readonly to?: number;
}

export async function readRollupBuckets(
  clickhouse: ClickHouseStore,
  workspaceId: string,
  eventId: string,
  period: Period,
  page: Page,
  range: BucketRange = {},
): Promise<RollupBucket[]> {
  const conditions = ['r.workspace_id = {ws:String}', 'r.event_id = {event:UUID}', 'r.period = {period:String}'];
  if (range.from !== undefined) conditions.push('r.bucket >= fromUnixTimestamp64Milli({from:Int64})');
  if (range.to !== undefined) conditions.push('r.bucket < fromUnixTimestamp64Milli({to:Int64})');
  const result = await clickhouse.client.query({
    // Columns are qualified (r.) so that the aliases below do not shadow them.
    query: `
      SELECT toUnixTimestamp(r.bucket) * 1000 AS start,
             sum(r.count) AS count, sum(r.value) AS value, sum(r.squares) AS squares,
             min(r.min) AS min, max(r.max) AS max
      FROM ${ROLLUP_TABLE} AS r
      WHERE ${conditions.join(' AND ')}
      GROUP BY r.bucket
      ORDER BY r.bucket DESC
      LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
    query_params: { ws: workspaceId, event: eventId, period, from: range.from, to: range.to, limit: page.limit, offset: page.offset },
    format: 'JSONEachRow',
  });
  return result.json<RollupBucket>();
}
