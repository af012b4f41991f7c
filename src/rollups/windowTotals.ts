// The totals of two time ranges of one event (a window comparison: the current window and
// the one it is compared with), exact, in one query and one round trip. Each range is a set
// of rollup ranges (readPlan.ts). The rollup table holds every period (tables.ts), so one
// SELECT reads the day, hour and minute rows of both windows, each row labelled with its
// window, and sums counts and values and merges the Welford variance states per window:
// unmerged parts of the AggregatingMergeTree count once, and the sample standard deviation
// stays exact for values near 1e9 with a spread of 1.
//
// The query is kept as plain as it can be, because on small rollups its cost is almost all
// parsing, analysis and planning, which grow with its pieces, and in chDB with every table
// it reads (about 3.5 ms each; reading the rows is under 2 ms of a 15 ms query): one table
// and one SELECT, a row's window told by one comparison, since the previous window always
// ends before the current one starts, and the query plan left unoptimized: its rewrites
// gain nothing on a few hundred rows and cost 10% of the query (the primary key still
// selects the granules; set in the statement, since chDB would apply a client setting to
// its session).
//
// The day rows are read from a day before their ranges, to find rows that are not at a
// local midnight of the event's timezone (rows bucketed under an earlier timezone by an
// ingest process that had not yet seen the change): when there are any, the windows are
// read again without days.
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { TimeRange } from '../time/range.js';
import type { Period } from './model.js';
import { LONGEST_DAY_MS, localMidnightsWithin, planRollupReads, type RollupPlan } from './readPlan.js';
import { ROLLUP_TABLE } from './tables.js';

// Window labels: `r.bucket >= <start of the current window>` is 1 or 0.
const PREVIOUS = 0;
const CURRENT = 1;
const MISALIGNED_DAY = 2;
/** Day rows read to check their alignment only. */
const OUTSIDE = 3;

export interface WindowTotals {
  readonly count: number;
  readonly value: number;
  /** Sample standard deviation (n − 1); 0 below two logs. */
  readonly stddev: number;
}

interface WindowQueryResult {
  readonly totals: readonly [current: WindowTotals, previous: WindowTotals];
  /** Day rows near the windows' days that are not at a local midnight of the event's timezone. */
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
  secondsArray(ms: readonly number[]): string {
    return this.bind(
      ms.map((m) => Math.floor(m / 1000)),
      'Array(UInt32)',
    );
  }
}

function rangesCondition(params: Params, ranges: readonly TimeRange[]): string {
  return ranges.map((r) => `r.bucket >= ${params.seconds(r.from)} AND r.bucket < ${params.seconds(r.to)}`).join(' OR ');
}

/** Which window a day row counts in, and the day ranges read: the days counted, and every
 * local midnight from a longest day before them (to find misaligned rows). */
function dayParts(params: Params, days: readonly TimeRange[], timezone: string, isCurrent: string): { label: string; where: string } {
  const counted = days.flatMap((d) => localMidnightsWithin(timezone, d).filter((m) => m < d.to));
  const checked = days.map((d) => ({ from: d.from - LONGEST_DAY_MS, to: d.to }));
  const aligned = checked.flatMap((r) => localMidnightsWithin(timezone, r));
  const bucket = 'toUnixTimestamp(r.bucket)';
  return {
    label: `if(has(${params.secondsArray(counted)}, ${bucket}), ${isCurrent}, if(has(${params.secondsArray(aligned)}, ${bucket}), ${OUTSIDE}, ${MISALIGNED_DAY}))`,
    where: rangesCondition(params, checked),
  };
}

/**
 * One SELECT of the rollup rows in the ranges of either window, every period at once, grouped
 * by window label. Columns are qualified (r.) because the aliases would shadow them otherwise.
 */
function windowQuerySql(current: TimeRange, plans: readonly [RollupPlan, RollupPlan], timezone: string): { sql: string; params: Record<string, unknown> } {
  const params = new Params();
  const isCurrent = `r.bucket >= ${params.seconds(current.from)}`;
  const rangesOf = (period: Period) => [...plans[0][period], ...plans[1][period]];
  const periodIs = (period: Period) => `r.period = ${params.bind(period, 'String')}`;
  const conditions: string[] = [];
  let label = isCurrent;
  const days = rangesOf('day');
  if (days.length > 0) {
    const day = dayParts(params, days, timezone, isCurrent);
    label = `if(${periodIs('day')}, ${day.label}, ${isCurrent})`;
    conditions.push(`(${periodIs('day')} AND (${day.where}))`);
  }
  for (const period of ['hour', 'minute'] as const) {
    const ranges = rangesOf(period);
    if (ranges.length > 0) conditions.push(`(${periodIs(period)} AND (${rangesCondition(params, ranges)}))`);
  }
  const sql = `
    SELECT ${label} AS w, count() AS rows, sum(r.count) AS n, sum(r.value) AS s,
           if(n < 2, 0, sqrt(greatest(varSampStableMerge(r.variance), 0))) AS sd
    FROM ${ROLLUP_TABLE} AS r
    WHERE r.workspace_id = {ws:String} AND r.event_id = {event:UUID} AND (${conditions.join(' OR ')})
    GROUP BY w
    SETTINGS query_plan_enable_optimizations = 0`;
  return { sql, params: params.values };
}

const EMPTY: WindowTotals = { count: 0, value: 0, stddev: 0 };

/** The event whose rollups are read; its timezone places the day buckets. */
export interface RollupEvent {
  readonly workspaceId: string;
  readonly eventId: string;
  readonly timezone: string;
}

async function queryWindowTotals(
  clickhouse: ClickHouseStore,
  event: RollupEvent,
  windows: readonly [current: TimeRange, previous: TimeRange],
  useDayRollups: boolean,
): Promise<WindowQueryResult> {
  const plans = windows.map((w) => planRollupReads(w, event.timezone, useDayRollups)) as [RollupPlan, RollupPlan];
  const { sql, params } = windowQuerySql(windows[0], plans, event.timezone);
  const result = await clickhouse.client.query({ query: sql, query_params: { ...params, ws: event.workspaceId, event: event.eventId }, format: 'JSONEachRow' });
  const rows = await result.json<Row>();
  const totalsOf = (window: number): WindowTotals => {
    const row = rows.find((r) => r.w === window);
    return row ? { count: row.n, value: row.s, stddev: row.sd } : EMPTY;
  };
  const misaligned = rows.find((r) => r.w === MISALIGNED_DAY);
  return { totals: [totalsOf(CURRENT), totalsOf(PREVIOUS)], misalignedDayRows: misaligned?.rows ?? 0 };
}

/**
 * Totals of the current and the previous window (each [from, to) on whole minutes). The
 * previous window must end before the current one starts, as every comparison's does.
 */
export async function readWindowTotals(
  clickhouse: ClickHouseStore,
  event: RollupEvent,
  windows: readonly [current: TimeRange, previous: TimeRange],
): Promise<readonly [current: WindowTotals, previous: WindowTotals]> {
  const [current, previous] = windows;
  if (previous.to > current.from) throw new Error('the previous window must end before the current one starts');
  let result = await queryWindowTotals(clickhouse, event, windows, true);
  // Day rows of another timezone (a change not yet seen by every ingest process) do not
  // cover these local days; hours and minutes do, whatever the timezone.
  if (result.misalignedDayRows > 0) result = await queryWindowTotals(clickhouse, event, windows, false);
  return result.totals;
}
