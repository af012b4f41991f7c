// Bucket numbers of a fleet's groups: one query for many fleet policies of one period, each
// reading its event name's rollups across the agents it watches, over its own bucket ranges,
// grouped per policy, group and bucket. The policies travel as a small table built from
// bound arrays and joined on (workspace, event name), so 1,000 policies of 100 groups cost
// one query, not 1,000, and 10,000 agents about what one does. At most `maxGroups` groups a
// bucket, the largest by count; how many groups each bucket had is returned beside.
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { TimeRange } from '../time/range.js';
import { joinRanges } from './bucketStats.js';
import type { BucketStats, Period } from './model.js';
import { ROLLUP_TABLE, SERIES_ROLLUP_TABLE } from './tables.js';

/** One fleet policy's part of a read. */
export interface GroupStatsRequest {
  readonly workspaceId: string;
  /** The records' event name. */
  readonly event: string;
  /** Groups are agents (true), or the fleet is one group (false). */
  readonly byAgent: boolean;
  /** LIKE patterns an agent must match one of. */
  readonly agentLikes: readonly string[];
  /** Agent names it must be one of; empty = any. */
  readonly agentsIn: readonly string[];
  /** Buckets starting in any of these ranges (ms). */
  readonly ranges: readonly TimeRange[];
  /** Leave out the groups whose buckets cannot move anything (GroupSieve); without it, every group is returned. */
  readonly sieve?: GroupSieve;
  /**
   * Read the series rollups instead (a group_by or filter on declared keys): of this
   * declaration version (null: none declared, nothing read), grouped by these keys (`agent`
   * among them or not), records only of series whose labels hold one of the values of each
   * filter key. The group value is then the agent for ['agent'], '' for none, else the JSON
   * array of the keys' values in order (seriesGroupValues). Not sieved.
   */
  readonly series?: SeriesSelection;
}

export interface SeriesSelection {
  readonly version: number | null;
  readonly groupBy: readonly string[];
  readonly filter: readonly { readonly key: string; readonly values: readonly string[] }[];
}

/** The values of a series-read group value, in its keys' order (SeriesSelection). */
export function seriesGroupValues(groupBy: readonly string[], value: string): string[] {
  if (groupBy.length === 0) return [];
  if (groupBy.length === 1 && groupBy[0] === 'agent') return [value];
  return JSON.parse(value) as string[];
}

/** seriesGroupValues' inverse: the group value of these values of the keys (JSON text as JSON.stringify writes it). */
export function seriesGroupValue(groupBy: readonly string[], values: readonly string[]): string {
  if (groupBy.length === 0) return '';
  if (groupBy.length === 1 && groupBy[0] === 'agent') return values[0] ?? '';
  return JSON.stringify(values);
}

/**
 * What lets the engine leave out a group that cannot change: one with no kept state nor open
 * alert (not in `kept`), records in every closed bucket due (so it did not fall silent), and
 * no bucket due whose aggregate comes near the threshold on the breaching side. The sieve
 * lets through more than breaches (a margin of 1e-6 of the threshold): the service judges
 * what it returns exactly, so only what is left out must be sure.
 */
export interface GroupSieve {
  /** The closed buckets due, [from, to), and how many they are. */
  readonly closed: TimeRange;
  readonly closedCount: number;
  /** The open buckets judged for an early breach, [from, to) (empty when none). */
  readonly open: TimeRange;
  /** A policy's aggregate and condition (src/policies/model.ts), which this folder sits below. */
  readonly aggregate: string;
  readonly condition: string;
  readonly threshold: number;
  /** Group values returned whatever their numbers: kept state, an open alert. */
  readonly kept: readonly string[];
}

const SIEVE_AGGREGATES: readonly string[] = ['count', 'sum', 'average', 'min', 'max', 'p95_est', 'p99_est'];
/** Which side of the threshold breaches: above (0), below (1), or near it (2, eq). */
const SIEVE_SIDE: Readonly<Record<string, number>> = { gt: 0, gte: 0, lt: 1, lte: 1, eq: 2 };

/** The sieve's columns of a request, as the joined table carries them (sieved 0: every group returned). */
function sieveColumns(q: GroupStatsRequest) {
  const s = q.sieve;
  return {
    // An aggregate or condition this folder does not know is not sieved: every group is returned.
    sieved: s && SIEVE_AGGREGATES.includes(s.aggregate) && SIEVE_SIDE[s.condition] !== undefined ? 1 : 0,
    agg: s ? Math.max(0, SIEVE_AGGREGATES.indexOf(s.aggregate)) : 0,
    side: s ? (SIEVE_SIDE[s.condition] ?? 0) : 0,
    thr: s?.threshold ?? 0,
    slack: s ? 1e-6 * Math.max(Math.abs(s.threshold), 1) : 0,
    cfrom: s?.closed.from ?? 0,
    cto: s?.closed.to ?? 0,
    ccount: s?.closedCount ?? 0,
    ofrom: s?.open.from ?? 0,
    oto: s?.open.to ?? 0,
    kept: s?.kept ?? [],
  };
}

/** The sieve's columns of every request as one array parameter per column. */
function sieveParams(columns: readonly ReturnType<typeof sieveColumns>[]): Record<string, unknown[]> {
  const params: Record<string, unknown[]> = {};
  for (const name of Object.keys(SIEVE_TYPES) as (keyof typeof SIEVE_TYPES)[]) params[`s_${name}`] = columns.map((c) => c[name]);
  return params;
}

/** Whether a bucket's aggregate comes near the threshold on the breaching side (columns of the bucket level). */
function nearBreach(quantiles: boolean): string {
  const value = `multiIf(agg = 0, toFloat64(cnt), agg = 1, sm, agg = 2, sm / cnt, agg = 3, mn, agg = 4, mx, ${quantiles ? 'agg = 5, qs[1], qs[2]' : 'nan'})`;
  return `multiIf(side = 0, ${value} >= thr - slack, side = 1, ${value} <= thr + slack, abs(${value} - thr) <= slack)`;
}

/** The sieve's columns in the joined table: their parameters (zipped after the 8 others) and their names. */
const SIEVE_TYPES = {
  sieved: 'UInt8',
  agg: 'UInt8',
  side: 'UInt8',
  thr: 'Float64',
  slack: 'Float64',
  cfrom: 'Int64',
  cto: 'Int64',
  ccount: 'UInt32',
  ofrom: 'Int64',
  oto: 'Int64',
  kept: 'Array(String)',
} as const;
const SIEVE_PARAMS = Object.entries(SIEVE_TYPES)
  .map(([name, type]) => `{s_${name}:Array(${type})}`)
  .join(', ');
const SIEVE_FIELDS = Object.keys(SIEVE_TYPES)
  .map((name, i) => `t.${i + 9} AS ${name}`)
  .join(', ');

// The series rollups' part of the joined table (after the sieve's 11 columns): the version,
// the group_by keys, and the filter as (key, value) pairs, a key's pairs its accepted values
// (flat: an empty array nested three deep does not bind). A group is the agent alone
// (['agent']), the fleet (none), or the JSON array of its keys' values.
const SERIES_PARAMS = ', {s_version:Array(UInt32)}, {s_gkeys:Array(Array(String))}, {s_fkeys:Array(Array(String))}, {s_fvals:Array(Array(String))}';
const SERIES_FIELDS = ', t.20 AS version, t.21 AS gkeys, t.22 AS fkeys, t.23 AS fvals';
const SERIES_GROUP = `multiIf(empty(p.gkeys), '', p.gkeys = ['agent'], r.agent, toJSONString(arrayMap(k -> if(k = 'agent', r.agent, r.labels[k]), p.gkeys)))`;
const SERIES_FILTER = `
            AND arrayAll(k -> arrayExists((fk, fv) -> fk = k AND fv = if(k = 'agent', r.agent, r.labels[k]), p.fkeys, p.fvals), arrayDistinct(p.fkeys))`;

function seriesParams(selections: readonly SeriesSelection[]): Record<string, unknown[]> {
  return {
    s_version: selections.map((s) => s.version ?? 0),
    s_gkeys: selections.map((s) => s.groupBy),
    s_fkeys: selections.map((s) => s.filter.flatMap((f) => f.values.map(() => f.key))),
    s_fvals: selections.map((s) => s.filter.flatMap((f) => f.values)),
  };
}

export interface GroupStatsRead {
  readonly period: Period;
  /** Day buckets: the IANA timezone whose local days they are (read from hour or minute rows). */
  readonly timezone: string;
  readonly quantiles: boolean;
  readonly maxGroups: number;
  readonly requests: readonly GroupStatsRequest[];
}

/** A group's numbers by bucket start, and the event definition of its agent (grouped by agent). */
export interface GroupBuckets {
  readonly eventId: string | null;
  readonly buckets: ReadonlyMap<number, BucketStats>;
}

export interface PolicyGroupStats {
  /** By group value: the agent, or '' for the fleet as one group. */
  readonly groups: ReadonlyMap<string, GroupBuckets>;
  /** Bucket start → groups that bucket had beyond maxGroups (only buckets that had some). */
  readonly truncated: ReadonlyMap<number, number>;
}

/** A policy's groups as arrays, the i-th of each the same group's, whose buckets are arrays again: one row per policy. */
interface PolicyRow {
  pidx: number;
  grps: string[];
  event_ids: string[];
  starts: number[][];
  totals: number[][];
  counts: number[][];
  sums: number[][];
  mins: number[][];
  maxs: number[][];
  quantiles?: [number, number][][];
}

const HOUR_MS = 3_600_000;

/**
 * Which rollup rows make the read's buckets: minutes and hours their own; a local day from
 * hours where the zone's offset is whole hours over the ranges (every midnight on an hour
 * boundary), else from minutes (Asia/Kolkata's midnight is at :30 UTC).
 */
function sourceOf(read: GroupStatsRead, offsetAt: (timezone: string, at: number) => number): { period: Period; bucket: string } {
  if (read.period !== 'day') return { period: read.period, bucket: 'toUnixTimestamp(r.bucket) * 1000' };
  const instants = read.requests.flatMap((q) => q.ranges.flatMap((r) => [r.from, r.to]));
  const wholeHours = instants.every((at) => offsetAt(read.timezone, at) % HOUR_MS === 0);
  return { period: wholeHours ? 'hour' : 'minute', bucket: 'toUnixTimestamp(toStartOfDay(r.bucket, {timezone:String})) * 1000' };
}

/**
 * The numbers of each request's groups, in the order of `read.requests`: one query, or two
 * when some requests read the series rollups (one per table).
 */
export async function readGroupStats(
  clickhouse: ClickHouseStore,
  read: GroupStatsRead,
  offsetAt: (timezone: string, at: number) => number,
): Promise<PolicyGroupStats[]> {
  const onSeries = read.requests.map((q) => q.series !== undefined);
  if (!onSeries.some(Boolean)) return readTable(clickhouse, read, offsetAt, false);
  // A declaration that is not there (removed since) has no series to read.
  const live = (q: GroupStatsRequest) => (q.series?.version === null ? { ...q, ranges: [] } : q);
  const [plain, series] = await Promise.all([
    onSeries.every(Boolean)
      ? null
      : readTable(clickhouse, { ...read, requests: read.requests.map((q, i) => (onSeries[i] ? { ...q, ranges: [] } : q)) }, offsetAt, false),
    readTable(clickhouse, { ...read, requests: read.requests.map((q, i) => (onSeries[i] ? live(q) : { ...q, ranges: [] })) }, offsetAt, true),
  ]);
  return read.requests.map((_, i) => (onSeries[i] ? series[i]! : plain![i]!));
}

/** readGroupStats of one table: the event rollups, or the series rollups (`series`). */
async function readTable(
  clickhouse: ClickHouseStore,
  read: GroupStatsRead,
  offsetAt: (timezone: string, at: number) => number,
  series: boolean,
): Promise<PolicyGroupStats[]> {
  const requests = read.requests.map((q) => ({ ...q, ranges: joinRanges(q.ranges) }));
  const out: { groups: Map<string, GroupBuckets>; truncated: Map<number, number> }[] = requests.map(() => ({ groups: new Map(), truncated: new Map() }));
  const live = requests.map((q, i) => ({ q, i })).filter(({ q }) => q.ranges.length > 0);
  if (live.length === 0) return out;
  const source = sourceOf(read, offsetAt);
  const from = Math.min(...live.map(({ q }) => q.ranges[0]!.from));
  const to = Math.max(...live.map(({ q }) => q.ranges[q.ranges.length - 1]!.to));
  // A day may start up to 14 hours before or after its UTC date: its source rows lie within a day of the range.
  const margin = read.period === 'day' ? 86_400_000 : 0;
  const quantileMerge = read.quantiles ? ', quantilesTDigestMerge(0.95, 0.99)(q) AS qs' : '';
  const quantileArrays = read.quantiles ? ', groupArray(quantiles) AS quantiles' : '';
  const result = await clickhouse.client.query({
    // One row per policy: turning 10,000 rows into text and parsing them costs more than the
    // engine's reading (as in bucketStats.ts).
    query: `
      SELECT pidx, groupArray(grp) AS grps, groupArray(event_id) AS event_ids, groupArray(starts) AS starts, groupArray(totals) AS totals,
             groupArray(counts) AS counts, groupArray(sums) AS sums, groupArray(mins) AS mins, groupArray(maxs) AS maxs${quantileArrays}
      FROM (
      SELECT pidx, grp, any(eid) AS event_id, groupArray(start) AS starts, groupArray(total) AS totals, groupArray(cnt) AS counts,
             groupArray(sm) AS sums, groupArray(mn) AS mins, groupArray(mx) AS maxs${read.quantiles ? ', groupArray(qs) AS quantiles' : ''}
      FROM (
        SELECT pidx, grp, any(eid) AS eid, start, sum(c) AS cnt, sum(v) AS sm, min(lo) AS mn, max(hi) AS mx${quantileMerge},
               count() OVER (PARTITION BY pidx, start) AS total, any(r_sieved) AS sieved, any(r_agg) AS agg, any(r_side) AS side,
               any(r_thr) AS thr, any(r_slack) AS slack, any(r_ccount) AS ccount, max(r_kept) AS kept, any(r_closed) AS closed, any(r_open) AS open
        FROM (
          SELECT p.pidx AS pidx, ${series ? SERIES_GROUP : "if(p.by_agent, r.agent, '')"} AS grp, toString(r.event_id) AS eid, ${source.bucket} AS start,
                 r.count AS c, r.value AS v, r.min AS lo, r.max AS hi${read.quantiles ? ', r.quantiles AS q' : ''},
                 p.sieved AS r_sieved, p.agg AS r_agg, p.side AS r_side, p.thr AS r_thr, p.slack AS r_slack, p.ccount AS r_ccount,
                 has(p.kept, grp) AS r_kept, start >= p.cfrom AND start < p.cto AS r_closed, start >= p.ofrom AND start < p.oto AS r_open
          -- A pattern that is not a constant is compiled for each row it is matched with: the
          -- common "every agent" (%) is decided once per policy instead.
          FROM ${series ? SERIES_ROLLUP_TABLE : ROLLUP_TABLE} AS r
          INNER JOIN (
            SELECT t.1 AS pidx, t.2 AS ws, t.3 AS ev, t.4 AS by_agent, t.5 AS likes, t.6 AS agents_in, t.7 AS froms, t.8 AS tos,
                   has(t.5, '%') AS any_agent, ${SIEVE_FIELDS}${series ? SERIES_FIELDS : ''}
            FROM (SELECT arrayJoin(arrayZip({pidx:Array(UInt32)}, {ws:Array(String)}, {ev:Array(String)}, {by_agent:Array(UInt8)},
                                            {likes:Array(Array(String))}, {agents_in:Array(Array(String))},
                                            {froms:Array(Array(Int64))}, {tos:Array(Array(Int64))},
                                            ${SIEVE_PARAMS}${series ? SERIES_PARAMS : ''})) AS t)
          ) AS p ON r.workspace_id = p.ws AND r.event = p.ev${series ? ' AND r.version = p.version' : ''}
          WHERE r.period = {source:String} AND r.workspace_id IN {workspaces:Array(String)}
            AND r.bucket >= fromUnixTimestamp64Milli({from:Int64}) AND r.bucket < fromUnixTimestamp64Milli({to:Int64})
            AND if(p.any_agent, 1, arrayExists(l -> r.agent LIKE l, p.likes)) AND if(empty(p.agents_in), 1, has(p.agents_in, r.agent))
            AND arrayExists((f, t) -> start >= f AND start < t, p.froms, p.tos)${series ? SERIES_FILTER : ''}
        )
        GROUP BY pidx, grp, start
        ORDER BY pidx, start, cnt DESC, grp
        LIMIT {max_groups:UInt32} BY pidx, start
      )
      GROUP BY pidx, grp
      HAVING NOT any(sieved) OR max(kept) OR countIf(closed AND cnt > 0) < any(ccount) OR max((closed OR open) AND ${nearBreach(read.quantiles)})
      )
      GROUP BY pidx`,
    query_params: {
      source: source.period,
      timezone: read.timezone,
      workspaces: [...new Set(live.map(({ q }) => q.workspaceId))],
      from: from - margin,
      to: to + margin,
      max_groups: read.maxGroups,
      pidx: live.map(({ i }) => i),
      ws: live.map(({ q }) => q.workspaceId),
      ev: live.map(({ q }) => q.event),
      by_agent: live.map(({ q }) => (q.byAgent ? 1 : 0)),
      likes: live.map(({ q }) => q.agentLikes),
      agents_in: live.map(({ q }) => q.agentsIn),
      froms: live.map(({ q }) => q.ranges.map((r) => r.from)),
      tos: live.map(({ q }) => q.ranges.map((r) => r.to)),
      ...sieveParams(live.map(({ q }) => sieveColumns(q))),
      ...(series ? seriesParams(live.map(({ q }) => q.series!)) : {}),
    },
    format: 'JSONEachRow',
  });
  for (const row of await result.json<PolicyRow>()) {
    const target = out[row.pidx]!;
    const byAgent = read.requests[row.pidx]!.byAgent;
    const groupBy = read.requests[row.pidx]!.series?.groupBy;
    for (const [g, engineGrp] of row.grps.entries()) {
      // The engine's JSON text (which escapes `/`) made JSON.stringify's, so labels find it again.
      const grp = series && groupBy !== undefined ? seriesGroupValue(groupBy, seriesGroupValues(groupBy, engineGrp)) : engineGrp;
      const buckets = new Map<number, BucketStats>();
      const [starts, counts, sums, mins, maxs, totals] = [row.starts[g]!, row.counts[g]!, row.sums[g]!, row.mins[g]!, row.maxs[g]!, row.totals[g]!];
      for (const [j, start] of starts.entries()) {
        const q = row.quantiles?.[g]?.[j];
        buckets.set(start, { count: counts[j]!, sum: sums[j]!, min: mins[j]!, max: maxs[j]!, p95: q?.[0] ?? null, p99: q?.[1] ?? null });
        const beyond = totals[j]! - read.maxGroups;
        if (beyond > 0) target.truncated.set(start, beyond);
      }
      target.groups.set(grp, { eventId: byAgent ? row.event_ids[g]! : null, buckets });
    }
  }
  return out;
}
