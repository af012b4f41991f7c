// GET /v1.0/series (docs/fleets.md, Reading series): an event name's groups over a bucket
// range, each group's buckets. One query: the event rollups when the read names no declared
// key (by agent, or the fleet as one), the series rollups of the declaration's version
// otherwise; groups the largest by count first, at most `limit`.
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { Period } from './model.js';
import { ROLLUP_TABLE, SERIES_ROLLUP_TABLE } from './tables.js';

export interface SeriesReadRequest extends RowSelection {
  readonly workspaceId: string;
  readonly event: string;
  readonly period: Period;
  readonly from: number;
  readonly to: number;
  readonly limit: number;
  /** The declaration's version when the read names a declared key; null: the event rollups. */
  readonly version: number | null;
}

export interface SeriesBucket {
  readonly occurred_at: string;
  readonly count: number;
  readonly value: number;
  readonly squares: number;
  readonly min: number;
  readonly max: number;
  readonly p95_est: number | null;
  readonly p99_est: number | null;
}

export interface SeriesGroup {
  readonly labels: Record<string, string>;
  readonly buckets: readonly SeriesBucket[];
}

/** What selects and groups an event name's rows (SeriesReadRequest, GroupWindowRequest). */
export interface RowSelection {
  readonly agentLikes: readonly string[];
  readonly filter: ReadonlyMap<string, readonly string[]>;
  readonly groupBy: readonly string[];
}

/**
 * The WHERE terms of `filter` (each beginning with AND) and the group expression (an
 * Array(String), empty for the fleet as one) over rows `r`, of the series rollups (`series`)
 * or the event rollups (which know no labels: agent only). Keys and values travel as
 * parameters, added to `params`; only their positions are in the text. `groupKeys`: the
 * group's expressions one by one (grouping by them is cheaper than by their array).
 */
export function selectionClauses(
  q: RowSelection,
  series: boolean,
  params: Record<string, unknown>,
): { filterSql: string; groupSql: string; groupKeys: string[] } {
  // `agent` is a column; a declared key a label (the event rollups have none: ''), by a bound name.
  const keyValueSql = (key: string, param: string) => (key === 'agent' ? 'r.agent' : series ? `r.labels[{${param}:String}]` : "''");
  params.likes = q.agentLikes;
  // Every agent (the default) costs no pattern match per row.
  const filterSql =
    (q.agentLikes.includes('%') ? '' : ' AND arrayExists(l -> r.agent LIKE l, {likes:Array(String)})') +
    [...q.filter.keys()]
      .map((key, i) => {
        params[`fk${i}`] = key;
        params[`fv${i}`] = q.filter.get(key);
        return ` AND has({fv${i}:Array(String)}, ${keyValueSql(key, `fk${i}`)})`;
      })
      .join('');
  const groupKeys = q.groupBy.map((key, i) => {
    params[`g${i}`] = key;
    return keyValueSql(key, `g${i}`);
  });
  const groupSql = groupKeys.length === 0 ? "CAST([], 'Array(String)')" : `[${groupKeys.join(', ')}]`;
  return { filterSql, groupSql, groupKeys };
}

interface Row {
  grp: string[];
  starts: number[];
  counts: number[];
  sums: number[];
  squares: number[];
  mins: number[];
  maxs: number[];
  qs: [number, number][];
}

export async function readSeries(clickhouse: ClickHouseStore, q: SeriesReadRequest): Promise<{ series: SeriesGroup[]; truncated: boolean }> {
  const series = q.version !== null;
  const params: Record<string, unknown> = {
    ws: q.workspaceId,
    event: q.event,
    period: q.period,
    from: q.from,
    to: q.to,
    limit: q.limit + 1,
    version: q.version ?? 0,
  };
  const { filterSql, groupSql } = selectionClauses(q, series, params);
  const result = await clickhouse.client.query({
    query: `
      SELECT grp, groupArray(start) AS starts, groupArray(cnt) AS counts, groupArray(sm) AS sums, groupArray(sq) AS squares,
             groupArray(mn) AS mins, groupArray(mx) AS maxs, groupArray(qs) AS qs
      FROM (
        SELECT ${groupSql} AS grp, toUnixTimestamp(r.bucket) * 1000 AS start, sum(r.count) AS cnt, sum(r.value) AS sm, sum(r.squares) AS sq,
               min(r.min) AS mn, max(r.max) AS mx, quantilesTDigestMerge(0.95, 0.99)(r.quantiles) AS qs
        FROM ${series ? SERIES_ROLLUP_TABLE : ROLLUP_TABLE} AS r
        WHERE r.workspace_id = {ws:String} AND r.event = {event:String} AND r.period = {period:String}
          AND r.bucket >= fromUnixTimestamp64Milli({from:Int64}) AND r.bucket < fromUnixTimestamp64Milli({to:Int64})
          ${series ? 'AND r.version = {version:UInt32}' : ''}${filterSql}
        GROUP BY grp, start
        ORDER BY start DESC
      )
      GROUP BY grp
      ORDER BY sum(cnt) DESC, grp
      LIMIT {limit:UInt32}`,
    query_params: params,
    format: 'JSONEachRow',
  });
  const rows = await result.json<Row>();
  const truncated = rows.length > q.limit;
  return {
    truncated,
    series: rows.slice(0, q.limit).map((row) => ({
      labels: Object.fromEntries(q.groupBy.map((key, i) => [key, row.grp[i] ?? ''])),
      buckets: row.starts
        .map((start, j) => ({
          occurred_at: new Date(Number(start)).toISOString(),
          count: Number(row.counts[j]),
          value: row.sums[j]!,
          squares: row.squares[j]!,
          min: row.mins[j]!,
          max: row.maxs[j]!,
          p95_est: finite(row.qs[j]?.[0]),
          p99_est: finite(row.qs[j]?.[1]),
        }))
        .sort((a, b) => (a.occurred_at < b.occurred_at ? 1 : -1)),
    })),
  };
}

const finite = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? null : v);
