// Which rollup rows add up to a time range exactly, reading as few rows as possible: whole
// local days from the day rollup, whole UTC hours from the hour rollup, and the minute
// rollup for the ragged edges. In zones with a half-hour offset (Asia/Kolkata) local days
// start at :30 UTC, so their edges come from minutes and the rest from hours and days.
import { startOfLocalDate } from '../time/localDay.js';
import type { TimeRange } from '../time/range.js';
import { wallTimeOf } from '../time/zonedTime.js';
import type { Period } from './model.js';

/** The bucket ranges to read, per period. */
export type RollupPlan = Readonly<Record<Period, readonly TimeRange[]>>;

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** The longest local day (25 hours) plus an hour of margin. */
export const LONGEST_DAY_MS = 26 * HOUR_MS;

/**
 * Local midnights of `timezone` in [from, to], oldest first: the buckets of the day rollup,
 * by the very function the ingest path buckets with (a skipped midnight gives the day's
 * first instant).
 */
export function localMidnightsWithin(timezone: string, range: TimeRange): number[] {
  const { year, month, day } = wallTimeOf(timezone, range.from);
  const midnights: number[] = [];
  for (let d = day; ; d++) {
    const midnight = startOfLocalDate(timezone, year, month - 1, d);
    if (midnight > range.to) return midnights;
    if (midnight >= range.from) midnights.push(midnight);
  }
}

/** Hours inside [from, to), and the minutes on either side of them. */
function splitByHours(range: TimeRange, plan: { hour: TimeRange[]; minute: TimeRange[] }): void {
  if (range.from >= range.to) return;
  const firstHour = Math.ceil(range.from / HOUR_MS) * HOUR_MS;
  const lastHour = Math.floor(range.to / HOUR_MS) * HOUR_MS;
  if (firstHour >= lastHour) {
    plan.minute.push(range);
    return;
  }
  if (range.from < firstHour) plan.minute.push({ from: range.from, to: firstHour });
  plan.hour.push({ from: firstHour, to: lastHour });
  if (lastHour < range.to) plan.minute.push({ from: lastHour, to: range.to });
}

/**
 * The rollup ranges that cover `range` exactly. Day rows are used only when
 * `useDayRollups`: they are bucketed by local midnight of the event's timezone, and a
 * caller that cannot trust that (see windowTotals.ts) reads hours and minutes instead.
 * `range` must start and end on whole minutes, as analytics windows do.
 */
export function planRollupReads(range: TimeRange, timezone: string, useDayRollups: boolean): RollupPlan {
  if (range.from % MINUTE_MS !== 0 || range.to % MINUTE_MS !== 0) throw new Error('rollup ranges start and end on whole minutes');
  const plan = { day: [] as TimeRange[], hour: [] as TimeRange[], minute: [] as TimeRange[] };
  const midnights = useDayRollups ? localMidnightsWithin(timezone, range) : [];
  if (midnights.length >= 2) {
    const days = { from: midnights[0]!, to: midnights[midnights.length - 1]! };
    splitByHours({ from: range.from, to: days.from }, plan);
    plan.day.push(days);
    splitByHours({ from: days.to, to: range.to }, plan);
  } else {
    splitByHours(range, plan);
  }
  return plan;
}
