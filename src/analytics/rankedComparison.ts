// The ranked window comparison of an event name across its fleet (docs/fleets.md, Ranked
// window comparisons): "which agents changed most since yesterday". The windows are those of
// a single event's comparison (windows.ts) in the request's timezone; the groups are selected
// as series reads select them (keys agent or declared, else 400), and one query in
// src/rollups/ compares, ranks and cuts them. Callable without HTTP; `now` is a parameter.
import { resolveSelection, type FleetSelectionQuery } from '../dimensions/seriesReads.js';
import { notFound, type ErrorDetail } from '../errors.js';
import type { TimezoneCatalog } from '../events/timezones.js';
import { readGroupComparisons, type ComparisonField, type GroupComparison } from '../rollups/groupWindowTotals.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { Queryable } from '../stores/postgres.js';
import { comparedWindows, requireSupported, type ComparedWindows, type Comparison, type WindowPeriod } from './windows.js';

export { COMPARISON_FIELDS, type ComparisonField } from '../rollups/groupWindowTotals.js';

/** At most this many groups ranked in one answer. */
export const MAX_RANKED_GROUPS = 1_000;

export interface RankedComparisonRequest extends FleetSelectionQuery {
  readonly period: WindowPeriod;
  readonly previous: Comparison;
  /** IANA; the windows of a day or more are its calendar days. */
  readonly timezone: string;
  readonly orderBy: ComparisonField;
  readonly direction: 'asc' | 'desc';
  readonly limit: number;
  /** ms since the epoch */
  readonly now: number;
}

export interface RankedComparison {
  readonly event: string;
  readonly period: WindowPeriod;
  readonly previous: Comparison;
  readonly groupBy: readonly string[];
  readonly timezone: string;
  readonly windows: ComparedWindows;
  readonly data: readonly GroupComparison[];
  /** More groups had data than `limit`. */
  readonly truncated: boolean;
}

async function eventNameExists(db: Queryable, workspaceId: string, event: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM event_definitions WHERE user_id = $1 AND event = $2 LIMIT 1', [workspaceId, event]);
  return rows.length > 0;
}

/**
 * 400 for an unsupported period/previous pair, an unknown timezone, a limit out of 1–1,000 or
 * a bad selection (every problem at once); 404 when no agent of the workspace sends the event
 * name (another workspace's names are not found).
 */
export async function rankedComparison(
  stores: { postgres: Queryable; clickhouse: ClickHouseStore },
  timezones: TimezoneCatalog,
  workspaceId: string,
  request: RankedComparisonRequest,
): Promise<RankedComparison> {
  requireSupported(request.period, request.previous);
  const problems: ErrorDetail[] = [];
  if (!timezones.has(request.timezone)) problems.push({ path: '/timezone', message: 'must be an IANA timezone name' });
  if (!(Number.isInteger(request.limit) && request.limit >= 1 && request.limit <= MAX_RANKED_GROUPS)) {
    problems.push({ path: '/limit', message: `must be an integer from 1 to ${MAX_RANKED_GROUPS}` });
  }
  const selection = await resolveSelection(stores.postgres, workspaceId, request, problems);
  if (!(await eventNameExists(stores.postgres, workspaceId, request.event))) throw notFound('event');
  const windows = comparedWindows(request.now, request.timezone, request.period, request.previous);
  const { groups, truncated } = await readGroupComparisons(stores.clickhouse, {
    ...selection,
    workspaceId,
    event: request.event,
    windows: [windows.current, windows.previous],
    orderBy: request.orderBy,
    direction: request.direction,
    limit: request.limit,
  });
  return {
    event: request.event,
    period: request.period,
    previous: request.previous,
    groupBy: selection.groupBy,
    timezone: request.timezone,
    windows,
    data: groups,
    truncated,
  };
}
