// The SQL of a window comparison: one query, one round trip. Each window is a set of rollup
// ranges (rollupPlan.ts). Each rollup table is read once, by one SELECT of its raw rows that
// labels every row with its window (the windows never overlap); the outer query sums counts
// and values and merges the Welford variance states per window, so unmerged parts of the
// AggregatingMergeTree count once and the sample standard deviation stays exact for values
// near 1e9 with a spread of 1. One SELECT per table rather than per (window, table): the
// cost of such a query on small rollups is mostly planning, which grows with its pieces.
//
// The day SELECT also labels day rows that are not at a local midnight of the event's
// timezone (rows bucketed under an earlier timezone by an ingest process that had not yet
// seen the change): when there are any, the caller reads the windows again without days.
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { RollupGrain, RollupPlan } from './rollupPlan.js';
import type { TimeRange } from './windows.js';

const TABLES: Readonly<Record<RollupGrain, string>> = { day: 'rollup_day', hour: 'rollup_hour', minute: 'rollup_minute' };

const CURRENT = 0;
const PREVIOUS = 1;
const MISALIGNED_DAY = 2;
/** Rows read to check their alignment only. */
const OUTSIDE = 3;

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

/** One row per window label; 64-bit integers arrive as JSON numbers (SESSION_SETTINGS). */
interface Row {
  w: number;
  rows: number;
  n: number;
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
  if (ranges.length === 0) return '0';
  return ranges.map((r) => `(r.bucket >= ${params.seconds(r.from)} AND r.bucket < ${params.seconds(r.to)})`).join(' OR ');
}

/** One table's rows in any of the ranges, labelled with their window. Columns are qualified
 * (r.) because the aliases would shadow them otherwise. */
function tableSelect(params: Params, grain: RollupGrain, plans: readonly [RollupPlan, RollupPlan], check: DayAlignmentCheck | null): string | null {
  const [current, previous] = plans.map((plan) => plan[grain]) as [readonly TimeRange[], readonly TimeRange[]];
  const checked = grain === 'day' && check !== null && check.ranges.length > 0 ? check : null;
  if (current.length + previous.length === 0 && checked === null) return null;
  const inCurrent = rangesCondition(params, current);
  const inPrevious = rangesCondition(params, previous);
  let label = `multiIf(${inCurrent}, ${CURRENT}, ${inPrevious}, ${PREVIOUS}, ${OUTSIDE})`;
  let where = `(${inCurrent}) OR (${inPrevious})`;
  if (checked !== null) {
    const midnights = params.bind(checked.midnights.map((ms) => Math.floor(ms / 1000)), 'Array(UInt32)');
    label = `if(toUnixTimestamp(r.bucket) NOT IN ${midnights}, ${MISALIGNED_DAY}, ${label})`;
    // The checked ranges hold the day ranges of both windows.
    where = rangesCondition(params, checked.ranges);
  }
  return `SELECT ${label} AS w, r.count AS n, r.value AS s, r.variance AS v FROM ${TABLES[grain]} AS r
    WHERE r.workspace_id = {ws:String} AND r.event_id = {event:UUID} AND (${where})`;
}

function windowQuerySql(plans: readonly [RollupPlan, RollupPlan], check: DayAlignmentCheck | null): { sql: string; params: Record<string, unknown> } {
  const params = new Params();
  const selects = (['day', 'hour', 'minute'] as const).map((grain) => tableSelect(params, grain, plans, check)).filter((s) => s !== null);
  const sql = `
    SELECT p.w AS w, count() AS rows, sum(p.n) AS n, sum(p.s) AS s,
           if(n < 2, 0, sqrt(greatest(varSampStableMerge(p.v), 0))) AS sd
    FROM (${selects.join('\n    UNION ALL ')}) AS p
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
  const result = await clickhouse.client.query({ query: sql, query_params: { ...params, ws: workspaceId, event: eventId }, format: 'JSONEachRow' });
  const rows = await result.json<Row>();
  const totalsOf = (window: number): WindowTotals => {
    const row = rows.find((r) => r.w === window);
    return row ? { count: row.n, value: row.s, stddev: row.sd } : EMPTY;
  };
  const misaligned = rows.find((r) => r.w === MISALIGNED_DAY);
  return { totals: [totalsOf(CURRENT), totalsOf(PREVIOUS)], misalignedDayRows: misaligned?.rows ?? 0 };
}
