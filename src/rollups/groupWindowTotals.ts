// The ranked window comparison (docs/fleets.md, Ranked window comparisons): two windows of an
// event name's groups — agents, declared keys' values, or the fleet as one — compared and
// ranked in one query. Each window is read from whole UTC hours and the minutes at its edges
// (readPlan.ts without day rows: a fleet's agents may each bucket their days in another
// timezone, while hours and minutes are the same for every agent). The rows are picked by
// the row-key set lookup of windowTotals.ts, told apart by window with one comparison, and the
// engine computes the 14 figures per group, orders by the one asked (nulls last, then by
// group for a stable order) and keeps the first `limit`, so 10,000 agents send back 10.
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { TimeRange } from '../time/range.js';
import type { Period } from './model.js';
import { planRollupReads } from './readPlan.js';
import { selectionClauses, type RowSelection } from './seriesRead.js';
import { ROLLUP_TABLE, SERIES_ROLLUP_TABLE } from './tables.js';

/** The figures of a comparison (docs/api.md, Analytics), in their order; any of them ranks. */
export const COMPARISON_FIELDS = [
  'current_value',
  'current_count',
  'current_mean',
  'current_stddev',
  'previous_value',
  'previous_count',
  'previous_mean',
  'previous_stddev',
  'value_delta',
  'count_delta',
  'mean_delta',
  'value_pct_change',
  'count_pct_change',
  'mean_pct_change',
] as const;
export type ComparisonField = (typeof COMPARISON_FIELDS)[number];

export interface GroupWindowRequest extends RowSelection {
  readonly workspaceId: string;
  readonly event: string;
  /** The declaration's version when the read names a declared key; null: the event rollups. */
  readonly version: number | null;
  /** [from, to) on whole minutes; the previous window ends before the current one starts. */
  readonly windows: readonly [current: TimeRange, previous: TimeRange];
  readonly orderBy: ComparisonField;
  readonly direction: 'asc' | 'desc';
  readonly limit: number;
}

export type GroupComparison = { readonly labels: Record<string, string> } & Readonly<Record<ComparisonField, number | null>>;

/** The Enum8 values of the rollup tables' `period` column (0005, 0007), as windowTotals.ts keys rows. */
const PERIOD_VALUE: Readonly<Record<Exclude<Period, 'day'>, number>> = { minute: 1, hour: 2 };
const STEP_MS: Readonly<Record<Exclude<Period, 'day'>, number>> = { minute: 60_000, hour: 3_600_000 };
const ROW_KEY = '(toUnixTimestamp(r.bucket) * 4 + toUInt8(r.period))';

/** The row keys of every hour and minute of both windows. */
function selectedKeys(windows: readonly TimeRange[]): number[] {
  const keys: number[] = [];
  for (const window of windows) {
    const plan = planRollupReads(window, 'UTC', false);
    for (const period of ['minute', 'hour'] as const) {
      for (const range of plan[period]) {
        for (let bucket = range.from; bucket < range.to; bucket += STEP_MS[period]) keys.push((bucket / 1000) * 4 + PERIOD_VALUE[period]);
      }
    }
  }
  return keys;
}

// Per window: the count, the sum, the sample standard deviation from the merged Welford
// states (0 below two records), the mean (null when empty); then the deltas and the
// percentage changes (null on a base of 0), as src/analytics/windowComparison.ts computes them.
const FIGURES = `
  sumIf(c, w) AS current_count, sumIf(v, w) AS current_value,
  if(current_count < 2, 0, sqrt(greatest(varSampStableMergeIf(var, w), 0))) AS current_stddev,
  sumIf(c, NOT w) AS previous_count, sumIf(v, NOT w) AS previous_value,
  if(previous_count < 2, 0, sqrt(greatest(varSampStableMergeIf(var, NOT w), 0))) AS previous_stddev,
  if(current_count = 0, NULL, current_value / current_count) AS current_mean,
  if(previous_count = 0, NULL, previous_value / previous_count) AS previous_mean,
  current_value - previous_value AS value_delta,
  toInt64(current_count) - toInt64(previous_count) AS count_delta,
  current_mean - previous_mean AS mean_delta,
  if(previous_value = 0, NULL, (current_value - previous_value) / previous_value * 100) AS value_pct_change,
  if(previous_count = 0, NULL, (current_count - previous_count) / previous_count * 100) AS count_pct_change,
  if(previous_mean IS NULL OR previous_mean = 0 OR current_mean IS NULL, NULL, (current_mean - previous_mean) / previous_mean * 100) AS mean_pct_change`;

type Row = { grp: string[] } & Record<ComparisonField, number | null>;

/** The first `limit` groups by `orderBy`, and whether there were more. */
export async function readGroupComparisons(clickhouse: ClickHouseStore, q: GroupWindowRequest): Promise<{ groups: GroupComparison[]; truncated: boolean }> {
  const [current, previous] = q.windows;
  if (previous.to > current.from) throw new Error('the previous window must end before the current one starts');
  if (!(COMPARISON_FIELDS as readonly string[]).includes(q.orderBy)) throw new Error(`not a comparison field: ${q.orderBy}`);
  const series = q.version !== null;
  const params: Record<string, unknown> = { ws: q.workspaceId, event: q.event, version: q.version ?? 0, sel: selectedKeys(q.windows), limit: q.limit + 1 };
  const { filterSql, groupKeys } = selectionClauses(q, series, params);
  const keys = groupKeys.map((_, i) => `k${i}`);
  const seconds = (ms: number) => String(Math.floor(ms / 1000));
  const result = await clickhouse.client.query({
    query: `
      SELECT ${keys.length === 0 ? "CAST([], 'Array(String)')" : `[${keys.join(', ')}]`} AS grp, ${FIGURES}
      FROM (
        SELECT ${groupKeys.map((sql, i) => `${sql} AS k${i}, `).join('')}r.bucket >= ${seconds(current.from)} AS w, r.count AS c, r.value AS v, r.variance AS var
        FROM ${series ? SERIES_ROLLUP_TABLE : ROLLUP_TABLE} AS r
        WHERE r.workspace_id = {ws:String} AND r.event = {event:String}${series ? ' AND r.version = {version:UInt32}' : ''}
          AND r.bucket >= ${seconds(previous.from)} AND r.bucket < ${seconds(current.to)}
          AND ${ROW_KEY} IN {sel:Array(UInt64)}${filterSql}
      )
      GROUP BY ${keys.length === 0 ? 'grp' : keys.join(', ')}
      ORDER BY ${q.orderBy} ${q.direction === 'asc' ? 'ASC' : 'DESC'} NULLS LAST, grp
      LIMIT {limit:UInt32}`,
    query_params: params,
    format: 'JSONEachRow',
  });
  const rows = await result.json<Row>();
  return {
    truncated: rows.length > q.limit,
    groups: rows.slice(0, q.limit).map(({ grp, ...figures }) => ({
      labels: Object.fromEntries(q.groupBy.map((key, i) => [key, grp[i] ?? ''])),
      ...Object.fromEntries(COMPARISON_FIELDS.map((f) => [f, figures[f] === null ? null : Number(figures[f])])),
    })) as GroupComparison[],
  };
}
