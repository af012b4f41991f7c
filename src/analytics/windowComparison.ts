// A window comparison of one event (docs/api.md, Analytics): the windows from the
// event's timezone and `now`, the totals of both from the rollups in ClickHouse, and the
// derived numbers (means, deltas, percentage changes). Callable without HTTP; `now` is a
// parameter so that callers (and tests) choose the instant.
import { requireEventDefinition } from '../events/operations.js';
import { readWindowTotals, type WindowTotals } from '../rollups/windowTotals.js';
import type { Stores } from '../stores/index.js';
import { comparedWindows, requireSupported, type ComparedWindows, type Comparison, type WindowPeriod } from './windows.js';

export interface ComparisonNumbers {
  readonly current_value: number;
  readonly current_count: number;
  readonly current_mean: number | null;
  readonly current_stddev: number;
  readonly previous_value: number;
  readonly previous_count: number;
  readonly previous_mean: number | null;
  readonly previous_stddev: number;
  readonly value_delta: number;
  readonly count_delta: number;
  readonly mean_delta: number | null;
  readonly value_pct_change: number | null;
  readonly count_pct_change: number | null;
  readonly mean_pct_change: number | null;
}

export interface WindowComparison {
  readonly eventId: string;
  readonly period: WindowPeriod;
  readonly previous: Comparison;
  readonly timezone: string;
  readonly windows: ComparedWindows;
  /** null when neither window has a log. */
  readonly data: ComparisonNumbers | null;
}

export interface WindowComparisonRequest {
  readonly eventId: string;
  readonly period: WindowPeriod;
  readonly previous: Comparison;
  /** ms since the epoch */
  readonly now: number;
}

const meanOf = (t: WindowTotals) => (t.count === 0 ? null : t.value / t.count);

/** (current − previous) / previous × 100; null when either is missing or the base is 0. */
function pctChange(current: number | null, previous: number | null): number | null {
  if (current === null || previous === null || previous === 0) return null;
  return ((current - previous) / previous) * 100;
}

export function comparisonNumbers(current: WindowTotals, previous: WindowTotals): ComparisonNumbers | null {
  if (current.count === 0 && previous.count === 0) return null;
  const currentMean = meanOf(current);
  const previousMean = meanOf(previous);
  return {
    current_value: current.value,
    current_count: current.count,
    current_mean: currentMean,
    current_stddev: current.stddev,
    previous_value: previous.value,
    previous_count: previous.count,
    previous_mean: previousMean,
    previous_stddev: previous.stddev,
    value_delta: current.value - previous.value,
    count_delta: current.count - previous.count,
    mean_delta: currentMean === null || previousMean === null ? null : currentMean - previousMean,
    value_pct_change: pctChange(current.value, previous.value),
    count_pct_change: pctChange(current.count, previous.count),
    mean_pct_change: pctChange(currentMean, previousMean),
  };
}

export async function windowComparison(stores: Stores, workspaceId: string, request: WindowComparisonRequest): Promise<WindowComparison> {
  requireSupported(request.period, request.previous);
  const definition = await requireEventDefinition(stores.postgres, workspaceId, request.eventId);
  const { timezone } = definition;
  const windows = comparedWindows(request.now, timezone, request.period, request.previous);

  const event = { workspaceId, eventId: definition.event_id, timezone, timezoneChanged: definition.timezone_changed_at !== null };
  const [current, previous] = await readWindowTotals(stores.clickhouse, event, [windows.current, windows.previous]);
  return {
    eventId: definition.event_id,
    period: request.period,
    previous: request.previous,
    timezone,
    windows,
    data: comparisonNumbers(current, previous),
  };
}
