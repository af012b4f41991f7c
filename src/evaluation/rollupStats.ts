// The numbers of many buckets of many events in one ClickHouse query per period: the
// worker reads every event its policies of that period watch, over the span of the buckets
// due, and matches rows to (event, bucket) in memory. Aggregate states are merged at read
// time, so rollup parts not yet merged count once.
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { Period } from '../policies/model.js';
import { EMPTY_BUCKET, type BucketStats } from './verdict.js';

const TABLES: Record<Period, string> = { minute: 'rollup_minute', hour: 'rollup_hour', day: 'rollup_day' };

/** Events per query: bound parameters travel in the request, which servers cap (1 MB by default). */
const EVENTS_PER_QUERY = 5000;

export interface StatsRequest {
  readonly period: Period;
  readonly workspaceIds: ReadonlySet<string>;
  readonly eventIds: ReadonlySet<string>;
  /** Buckets starting in [from, to), ms. */
  readonly from: number;
  readonly to: number;
}

export const statsKey = (workspaceId: string, eventId: string, bucketStart: number) => `${workspaceId}\u0000${eventId}\u0000${bucketStart}`;

interface StatsRow {
  workspace_id: string;
  event_id: string;
  start: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  quantiles: [number, number];
}

/** Bucket numbers by statsKey; a bucket with no row is empty (see statsOf). */
export async function readBucketStats(clickhouse: ClickHouseStore, request: StatsRequest): Promise<Map<string, BucketStats>> {
  const stats = new Map<string, BucketStats>();
  const events = [...request.eventIds];
  for (let i = 0; i < events.length; i += EVENTS_PER_QUERY) {
    const result = await clickhouse.client.query({
      // Columns are qualified (r.) so that the aliases below do not shadow them.
      query: `
        SELECT r.workspace_id AS workspace_id, toString(r.event_id) AS event_id, toUnixTimestamp(r.bucket) * 1000 AS start,
               sum(r.count) AS count, sum(r.value) AS sum, min(r.min) AS min, max(r.max) AS max,
               quantilesTDigestMerge(0.95, 0.99)(r.quantiles) AS quantiles
        FROM ${TABLES[request.period]} AS r
        WHERE r.workspace_id IN {workspaces:Array(String)} AND r.event_id IN {events:Array(UUID)}
          AND r.bucket >= fromUnixTimestamp64Milli({from:Int64}) AND r.bucket < fromUnixTimestamp64Milli({to:Int64})
        GROUP BY r.workspace_id, r.event_id, r.bucket`,
      query_params: { workspaces: [...request.workspaceIds], events: events.slice(i, i + EVENTS_PER_QUERY), from: request.from, to: request.to },
      format: 'JSONEachRow',
    });
    for (const row of await result.json<StatsRow>()) {
      stats.set(statsKey(row.workspace_id, row.event_id, row.start), {
        count: row.count,
        sum: row.sum,
        min: row.min,
        max: row.max,
        p95: row.quantiles[0],
        p99: row.quantiles[1],
      });
    }
  }
  return stats;
}

export const statsOf = (stats: ReadonlyMap<string, BucketStats>, workspaceId: string, eventId: string, bucketStart: number): BucketStats =>
  stats.get(statsKey(workspaceId, eventId, bucketStart)) ?? EMPTY_BUCKET;
