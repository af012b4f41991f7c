// The SQL of a window comparison: one query, one round trip. Each window is a set of rollup
// ranges (rollupPlan.ts); every (window, rollup table) pair is one SELECT of raw rollup
// rows, and the outer query sums counts and values and merges the Welford variance states
// per window, so unmerged parts of the AggregatingMergeTree count once and the sample
// standard deviation stays exact for values near 1e9 with a spread of 1.
//
// A last piece counts day rows that are not at a local midnight of the event's timezone
// (rows bucketed under an earlier timezone, written by an ingest process that had not yet
// seen the change): when there are any, the caller reads the windows again without days.
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { RollupGrain, RollupPlan } from './rollupPlan.js';
import type { TimeRange } from './windows.js';

const TABLES: Readonly<Record<RollupGrain, string>> = { day: 'rollup_day', hour: 'rollup_hour', minute: 'rollup_minute' };

export const CURRENT = 0;
export const PREVIOUS = 1;
const MISALIGNED_DAYS = 2;

export interface WindowTotals {
  readonly count: number;
  readonly value: number;
  /** Sample standard deviation (n − 1); 0 below two logs. */
  readonly stddev: number;
}

export interface DayAlignmentCheck {
  /** Day rows in these ranges must start at one of `midnights`. */
  readonly ranges: readonly TimeRange[];
  readonly midnights: readonly number[];
}

export interface WindowQueryResult {
  readonly totals: readonly [WindowTotals, WindowTotals];
  /** Day rows in the checked ranges that are not at a local midnight of the event's timezone. */
  readonly misalignedDayRows: number;
}

interface Row {
  w: number;
  rows: string;
  n: string;
  s: number;
  sd: number;
}

/** Binds values as {pN:Type} parameters, in order. */
class Params {
  readonly values: Record<string, unknown> = {};
  private next = 0;
  bind(value: unknown, type: string): string {
    const name = `p${this.next++}`;
    this.values[name] = value;
    return `{${name}:${type}}`;
  }
  seconds(ms: number): string {
    return `fromUnixTimestamp(${this.bind(Math.floor(ms / 1000), 'UInt32')})`;
  }
}

function rangesCondition(params: Params, ranges: readonly TimeRange[]): string {
  return ranges.map((r) => `(r.bucket >= ${params.seconds(r.from)} AND r.bucket < ${params.seconds(r.to)})`).join(' OR ');
}

/** Columns are qualified (r.) because the aliases would shadow them otherwise. */
function piece(params: Params, window: number, table: string, condition: string): string {
  return `SELECT ${window} AS w, r.count AS n, r.value AS s, r.variance AS v FROM ${table} AS r
    WHERE r.workspace_id = {ws:String} AND r.event_id = {event:UUID} AND (${condition})`;
}

export function windowQuerySql(plans: readonly [RollupPlan, RollupPlan], check: DayAlignmentCheck | null): { sql: string; params: Record<string, unknown> } {
  const params = new Params();
  const pieces: string[] = [];
  plans.forEach((plan, window) => {
    for (const grain of ['day', 'hour', 'minute'] as const) {
      if (plan[grain].length > 0) pieces.push(piece(params, window, TABLES[grain], rangesCondition(params, plan[grain])));
    }
  });
  if (check !== null && check.ranges.length > 0) {
    const midnights = params.bind(check.midnights.map((ms) => Math.floor(ms / 1000)), 'Array(UInt32)');
    const condition = `(${rangesCondition(params, check.ranges)}) AND toUnixTimestamp(r.bucket) NOT IN ${midnights}`;
    pieces.push(piece(params, MISALIGNED_DAYS, TABLES.day, condition));
  }
  if (pieces.length === 0) return { sql: '', params: params.values };
  const sql = `
    SELECT p.w AS w, count() AS rows, sum(p.n) AS n, sum(p.s) AS s,
           if(n < 2, 0, sqrt(greatest(varSampStableMerge(p.v), 0))) AS sd
    FROM (${pieces.join('\n    UNION ALL ')}) AS p
    GROUP BY p.w`;
  return { sql, params: params.values };
}

const EMPTY: WindowTotals = { count: 0, value: 0, stddev: 0 };

export async function queryWindowTotals(
  clickhouse: ClickHouseStore,
  workspaceId: string,
  eventId: string,
  plans: readonly [RollupPlan, RollupPlan],
  check: DayAlignmentCheck | null,
): Promise<WindowQueryResult> {
  const { sql, params } = windowQuerySql(plans, check);
  if (sql === '') return { totals: [EMPTY, EMPTY], misalignedDayRows: 0 };
  const result = await clickhouse.client.query({ query: sql, query_params: { ...params, ws: workspaceId, event: eventId }, format: 'JSONEachRow' });
  const rows = await result.json<Row>();
  const totalsOf = (window: number): WindowTotals => {
    const row = rows.find((r) => r.w === window);
    return row ? { count: Number(row.n), value: row.s, stddev: row.sd } : EMPTY;
  };
  const misaligned = rows.find((r) => r.w === MISALIGNED_DAYS);
  return { totals: [totalsOf(CURRENT), totalsOf(PREVIOUS)], misalignedDayRows: misaligned ? Number(misaligned.rows) : 0 };
}
