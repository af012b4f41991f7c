// The totals of two time ranges of one event (a window comparison: the current window and
// the one it is compared with), exact, in one query and one round trip. Each range is a set
// of rollup ranges (readPlan.ts). The rollup table holds every period (tables.ts), so one
// SELECT reads the day, hour and minute rows of both windows, tells each row's window by one
// comparison (the previous window always ends before the current one starts), and sums
// counts and values and merges the Welford variance states per window: unmerged parts of the
// AggregatingMergeTree count once, and the sample standard deviation stays exact for values
// near 1e9 with a spread of 1.
//
// On small rollups the query's cost is almost all parsing, analysis and planning, and that
// grows with every function and every OR in it (0.15–0.3 ms each in chDB, measured on the
// bench data; reading the few hundred rows is under 2 ms of a 10 ms query). So the rows are
// chosen by one set lookup, whatever the periods: each rollup row the plans want has a key
// `bucket × 4 + period` (Unix seconds; the period Enum8's value, 1–3), all listed in one
// bound array, and the WHERE is `row_key IN {sel}` beside the event and one bucket span that
// lets the primary key skip the rest. A range per period and window (the earlier shape) cost
// two comparisons each and an OR per period, which made the windows with day rows 1.4–1.8×
// the others. Time bounds are integers computed here, written into the SQL; the workspace,
// event and arrays are bound. The query plan is left unoptimized: its rewrites gain nothing
// on a few hundred rows and cost 10% of the query (the primary key still selects the
// granules; set in the statement, since chDB would apply a client setting to its session).
//
// Day rows bucketed under an earlier timezone (by an ingest process that had not yet seen a
// change) do not cover the local days of the event's timezone. They can exist only for an
// event whose timezone changed (Postgres records when: events.timezone_changed_at); for the
// others the query reads the selected rows alone. For those that changed, when the plans read
// day rows, the same query also reads the day rows of the whole span, from a longest day before it (a
// row that starts before the first counted day may reach into it), that are not at a local
// midnight of the timezone (`period = 'day' AND row_key NOT IN {aligned}`, the midnights by
// the function the ingest path buckets with), grouped apart from the selected rows (GROUP
// BY window, selected); if there is any, the windows are read again without days. The span
// holds every counted day and the longest day before each, so every row the earlier check
// (per day range) caught is caught; a stale row elsewhere in the span also makes it read
// again, which costs a second query and stays exact.
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { TimeRange } from '../time/range.js';
import type { Period } from './model.js';
import { LONGEST_DAY_MS, localMidnightsWithin, planRollupReads, type RollupPlan } from './readPlan.js';
import { ROLLUP_TABLE } from './tables.js';

export interface WindowTotals {
  readonly count: number;
  readonly value: number;
  /** Sample standard deviation (n − 1); 0 below two logs. */
  readonly stddev: number;
}

interface WindowQueryResult {
  readonly totals: readonly [current: WindowTotals, previous: WindowTotals];
  /** Day rows in the span read that are not at a local midnight of the event's timezone. */
  readonly misalignedDayRows: number;
}

/** One row per window (w: 1 current, 0 previous) and, when day rows are checked, selection; 64-bit integers arrive as JSON numbers (SESSION_SETTINGS). */
interface Row {
  w: number;
  /** 0 for the misaligned day rows; absent when the query checks no day rows. */
  selected?: number;
  rows: number;
  n: number;
  s: number;
  sd: number;
}

/** The Enum8 values of the rollup table's `period` column (schema/clickhouse/0005). */
const PERIOD_VALUE: Readonly<Record<Period, number>> = { minute: 1, hour: 2, day: 3 };
const PERIOD_MS: Readonly<Record<Exclude<Period, 'day'>, number>> = { minute: 60_000, hour: 3_600_000 };
/** The row key the query compares with: the bucket's Unix seconds × 4 + the period's value. */
const ROW_KEY = '(toUnixTimestamp(r.bucket) * 4 + toUInt8(r.period))';
const keyOf = (bucketMs: number, period: Period) => (bucketMs / 1000) * 4 + PERIOD_VALUE[period];

/** The keys of every rollup row the plans read: each minute and hour of their ranges, and each local midnight of their day ranges. */
function selectedKeys(plans: readonly RollupPlan[], timezone: string): number[] {
  const keys: number[] = [];
  for (const plan of plans) {
    for (const period of ['minute', 'hour'] as const) {
      for (const range of plan[period]) {
        for (let bucket = range.from; bucket < range.to; bucket += PERIOD_MS[period]) keys.push(keyOf(bucket, period));
      }
    }
    for (const range of plan.day) {
      for (const midnight of localMidnightsWithin(timezone, range)) if (midnight < range.to) keys.push(keyOf(midnight, 'day'));
    }
  }
  return keys;
}

/** The event whose rollups are read; its timezone places the day buckets. */
export interface RollupEvent {
  readonly workspaceId: string;
  readonly eventId: string;
  readonly timezone: string;
  /** Whether the timezone ever changed: only then can day rows of another timezone exist. */
  readonly timezoneChanged: boolean;
}

const seconds = (ms: number) => String(Math.floor(ms / 1000));

/** The SELECT of the rows of both windows, grouped by window (and by selection when day rows are checked). */
function windowQuery(current: TimeRange, plans: readonly [RollupPlan, RollupPlan], event: RollupEvent): { sql: string; params: Record<string, unknown> } {
  const { timezone } = event;
  const ranges = plans.flatMap((plan) => [...plan.minute, ...plan.hour, ...plan.day]);
  const checksDays = event.timezoneChanged && plans.some((plan) => plan.day.length > 0);
  const span = {
    from: Math.min(...ranges.map((r) => r.from)) - (checksDays ? LONGEST_DAY_MS : 0),
    to: Math.max(...ranges.map((r) => r.to)),
  };
  const params: Record<string, unknown> = { sel: selectedKeys(plans, timezone) };
  const rows = `FROM ${ROLLUP_TABLE} AS r
    WHERE r.workspace_id = {ws:String} AND r.event_id = {event:UUID} AND r.bucket >= ${seconds(span.from)} AND r.bucket < ${seconds(span.to)}`;
  const totals = `count() AS rows, sum(r.count) AS n, sum(r.value) AS s, if(n < 2, 0, sqrt(greatest(varSampStableMerge(r.variance), 0))) AS sd`;
  const window = `r.bucket >= ${seconds(current.from)}`;
  const settings = 'SETTINGS query_plan_enable_optimizations = 0';
  if (!checksDays) {
    return { sql: `SELECT ${window} AS w, ${totals} ${rows} AND ${ROW_KEY} IN {sel:Array(UInt64)} GROUP BY w ${settings}`, params };
  }
  params.aligned = localMidnightsWithin(timezone, span).map((midnight) => keyOf(midnight, 'day'));
  return {
    sql: `SELECT ${window} AS w, (${ROW_KEY} AS row_key) IN {sel:Array(UInt64)} AS selected, ${totals} ${rows}
      AND (selected OR r.period = 'day' AND row_key NOT IN {aligned:Array(UInt64)}) GROUP BY w, selected ${settings}`,
    params,
  };
}

const EMPTY: WindowTotals = { count: 0, value: 0, stddev: 0 };

async function queryWindowTotals(
  clickhouse: ClickHouseStore,
  event: RollupEvent,
  windows: readonly [current: TimeRange, previous: TimeRange],
  useDayRollups: boolean,
): Promise<WindowQueryResult> {
  const plans = windows.map((w) => planRollupReads(w, event.timezone, useDayRollups)) as [RollupPlan, RollupPlan];
  const { sql, params } = windowQuery(windows[0], plans, event);
  const result = await clickhouse.client.query({ query: sql, query_params: { ...params, ws: event.workspaceId, event: event.eventId }, format: 'JSONEachRow' });
  const rows = await result.json<Row>();
  const totalsOf = (window: number): WindowTotals => {
    const row = rows.find((r) => r.w === window && r.selected !== 0);
    return row ? { count: row.n, value: row.s, stddev: row.sd } : EMPTY;
  };
  const misalignedDayRows = rows.filter((r) => r.selected === 0).reduce((n, r) => n + r.rows, 0);
  return { totals: [totalsOf(1), totalsOf(0)], misalignedDayRows };
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
