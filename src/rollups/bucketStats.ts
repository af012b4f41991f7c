// Bucket numbers for policies: count, sum, min, max and the t-digest p95/p99 of each bucket.
//  - readBucketStats: many buckets of many events in one query per period. The evaluation
//    worker asks for every event its policies of that period watch, over the spans of the
//    buckets due and of the buckets they are compared with, and looks buckets up by
//    (workspace, event, start) with statsOf. readPeriodsBucketStats: the same for several
//    periods in one query (a data-driven evaluation of a few events: one query, not three).
//  - bucketSeriesSql: the buckets of one event over a span, oldest first, as a subquery to
//    build on (window functions over the series, e.g. a backtest).
// Aggregate states are merged at read time, so rollup parts not yet merged count once.
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { TimeRange } from '../time/range.js';
import { EMPTY_BUCKET, type BucketStats, type Period } from './model.js';
import { ROLLUP_TABLE } from './tables.js';

/** Events per query: bound parameters travel in the request, which servers cap (1 MB by default). */
const EVENTS_PER_QUERY = 5000;

/** How the numbers of a bucket come from its rollup rows `r` (columns qualified: aliases would shadow them). */
const STATS_COLUMNS = `toUnixTimestamp(r.bucket) * 1000 AS start,
  sum(r.count) AS count, sum(r.value) AS sum, min(r.min) AS min, max(r.max) AS max`;
/** Merging the t-digests: two thirds of the time of an hour or day read. */
const QUANTILE_COLUMNS = 'quantilesTDigestMerge(0.95, 0.99)(r.quantiles) AS quantiles';

export interface StatsRequest {
  readonly period: Period;
  readonly workspaceIds: ReadonlySet<string>;
  readonly eventIds: ReadonlySet<string>;
  /** Buckets starting in any of these ranges (they may overlap), ms. */
  readonly ranges: readonly TimeRange[];
  /** false: p95 and p99 are left null (not read), for a caller that judges no quantile. Default true. */
  readonly quantiles?: boolean;
}

/** An event's bucket numbers by bucket start (ms). */
export type EventBucketStats = ReadonlyMap<number, BucketStats>;

/**
 * Bucket numbers by (workspace, event), then bucket start; read them with statsOf, or take an
 * event's map once with eventStatsOf when judging many of its buckets (millions in a catch-up
 * cycle: no key string is built per bucket).
 */
export type BucketStatsTable = ReadonlyMap<string, EventBucketStats>;

const eventKey = (workspaceId: string, eventId: string) => `${workspaceId}\u0000${eventId}`;
const NO_BUCKETS: EventBucketStats = new Map();

/** The numbers of an event's buckets that have rollup rows. */
export const eventStatsOf = (stats: BucketStatsTable, workspaceId: string, eventId: string): EventBucketStats =>
  stats.get(eventKey(workspaceId, eventId)) ?? NO_BUCKETS;

/** The numbers of a bucket; a bucket with no rollup row is empty. */
export const statsOf = (stats: BucketStatsTable, workspaceId: string, eventId: string, bucketStart: number): BucketStats =>
  eventStatsOf(stats, workspaceId, eventId).get(bucketStart) ?? EMPTY_BUCKET;

interface StatsRow {
  start: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  quantiles?: [number, number];
}

const statsOfRow = (row: StatsRow): BucketStats => ({
  count: row.count,
  sum: row.sum,
  min: row.min,
  max: row.max,
  p95: row.quantiles?.[0] ?? null,
  p99: row.quantiles?.[1] ?? null,
});

/** An event's buckets of one period as arrays, the i-th of each the same bucket's: one row per event, not per bucket. */
interface EventStatsRow {
  workspace_id: string;
  event_id: string;
  period: Period;
  starts: number[];
  counts: number[];
  sums: number[];
  mins: number[];
  maxs: number[];
  quantiles?: [number, number][];
}

function eventStatsOfRow(row: EventStatsRow): Map<number, BucketStats> {
  const buckets = new Map<number, BucketStats>();
  for (const [i, start] of row.starts.entries()) {
    buckets.set(start, statsOfRow({ start, count: row.counts[i]!, sum: row.sums[i]!, min: row.mins[i]!, max: row.maxs[i]!, quantiles: row.quantiles?.[i] }));
  }
  return buckets;
}

/** Sorted, with overlapping and touching ranges joined: fewer conditions for the same buckets. */
export function joinRanges(ranges: readonly TimeRange[]): TimeRange[] {
  const joined: { from: number; to: number }[] = [];
  for (const range of [...ranges].filter((r) => r.from < r.to).sort((a, b) => a.from - b.from)) {
    const last = joined[joined.length - 1];
    if (last && range.from <= last.to) last.to = Math.max(last.to, range.to);
    else joined.push({ ...range });
  }
  return joined;
}

/** The numbers of one period's buckets: readPeriodsBucketStats of one request. */
export async function readBucketStats(clickhouse: ClickHouseStore, request: StatsRequest): Promise<BucketStatsTable> {
  return (await readPeriodsBucketStats(clickhouse, [request])).get(request.period) ?? new Map();
}

/**
 * The numbers of the buckets of several requests, one period each, in one query (per
 * EVENTS_PER_QUERY events of them all): each request's ranges are read for its period. An
 * event of one request is read over another's ranges too, which only adds rows nobody looks
 * up. The quantiles are read for all where any request wants them.
 */
export async function readPeriodsBucketStats(clickhouse: ClickHouseStore, requests: readonly StatsRequest[]): Promise<ReadonlyMap<Period, BucketStatsTable>> {
  const stats = new Map<Period, Map<string, Map<number, BucketStats>>>();
  const workspaceIds = new Set<string>();
  const eventIds = new Set<string>();
  const params: Record<string, unknown> = {};
  const periods: string[] = [];
  for (const [p, request] of requests.entries()) {
    const ranges = joinRanges(request.ranges);
    if (ranges.length === 0 || request.eventIds.size === 0) continue;
    for (const id of request.workspaceIds) workspaceIds.add(id);
    for (const id of request.eventIds) eventIds.add(id);
    params[`period${p}`] = request.period;
    const inRanges = ranges
      .map((r, i) => {
        params[`from${p}_${i}`] = r.from;
        params[`to${p}_${i}`] = r.to;
        return `(r.bucket >= fromUnixTimestamp64Milli({from${p}_${i}:Int64}) AND r.bucket < fromUnixTimestamp64Milli({to${p}_${i}:Int64}))`;
      })
      .join(' OR ');
    periods.push(`(r.period = {period${p}:String} AND (${inRanges}))`);
  }
  if (periods.length === 0) return stats;
  const quantiles = requests.some((r) => r.quantiles !== false);
  const columns = quantiles ? `${STATS_COLUMNS}, ${QUANTILE_COLUMNS}` : STATS_COLUMNS;
  const events = [...eventIds];
  for (let i = 0; i < events.length; i += EVENTS_PER_QUERY) {
    // One row per event and period, its buckets in arrays: turning rows into text and parsing
    // them, not ClickHouse's reading, is most of a read of many buckets (a catch-up of 61
    // minutes over 5,000 events: 85 ms in the engine, 500-900 ms as one row per bucket, 200 ms so).
    const result = await clickhouse.client.query({
      query: `
        SELECT workspace_id, event_id, period, groupArray(start) AS starts, groupArray(count) AS counts, groupArray(sum) AS sums,
               groupArray(min) AS mins, groupArray(max) AS maxs${quantiles ? ', groupArray(quantiles) AS quantiles' : ''}
        FROM (
          SELECT r.workspace_id AS workspace_id, toString(r.event_id) AS event_id, r.period AS period, ${columns}
          FROM ${ROLLUP_TABLE} AS r
          WHERE r.workspace_id IN {workspaces:Array(String)} AND r.event_id IN {events:Array(UUID)}
            AND (${periods.join(' OR ')})
          GROUP BY r.workspace_id, r.event_id, r.period, r.bucket
        )
        GROUP BY workspace_id, event_id, period`,
      query_params: { ...params, workspaces: [...workspaceIds], events: events.slice(i, i + EVENTS_PER_QUERY) },
      format: 'JSONEachRow',
    });
    for (const row of await result.json<EventStatsRow>()) {
      let byEvent = stats.get(row.period);
      if (!byEvent) {
        byEvent = new Map();
        stats.set(row.period, byEvent);
      }
      byEvent.set(eventKey(row.workspace_id, row.event_id), eventStatsOfRow(row));
    }
  }
  return stats;
}

export interface SeriesRequest {
  readonly period: Period;
  readonly workspaceId: string;
  readonly eventId: string;
  /** Buckets starting in [from, to), ms. */
  readonly from: number;
  readonly to: number;
}

/** A query and the parameters it binds (each named `series_…`, so a wrapping query can bind its own). */
export interface SqlWithParams {
  readonly sql: string;
  readonly params: Record<string, unknown>;
}

/**
 * The buckets of one event that have logs, oldest first: columns `start` (ms), `count`,
 * `sum`, `min`, `max`, `quantiles` ([p95, p99]). Buckets without logs have no row.
 */
export function bucketSeriesSql(request: SeriesRequest): SqlWithParams {
  return {
    sql: `
      SELECT ${STATS_COLUMNS}, ${QUANTILE_COLUMNS}
      FROM ${ROLLUP_TABLE} AS r
      WHERE r.workspace_id = {series_ws:String} AND r.event_id = {series_event:UUID} AND r.period = {series_period:String}
        AND r.bucket >= fromUnixTimestamp64Milli({series_from:Int64}) AND r.bucket < fromUnixTimestamp64Milli({series_to:Int64})
      GROUP BY r.bucket
      ORDER BY r.bucket`,
    params: { series_ws: request.workspaceId, series_event: request.eventId, series_period: request.period, series_from: request.from, series_to: request.to },
  };
}

/** The series of bucketSeriesSql, read: each bucket's start and numbers. */
export async function readBucketSeries(clickhouse: ClickHouseStore, request: SeriesRequest): Promise<(BucketStats & { start: number })[]> {
  const { sql, params } = bucketSeriesSql(request);
  const result = await clickhouse.client.query({ query: sql, query_params: params, format: 'JSONEachRow' });
  return (await result.json<StatsRow>()).map((row) => ({ start: row.start, ...statsOfRow(row) }));
}
