// The two windows a window comparison reads (docs/api.md, Analytics), as exact UTC instants, from
// `now`, the event's timezone, the period and the comparison. Pure: no clock, no store.
//
// The current window is a calendar window of the event's timezone — the clock hour (1h),
// the day since local midnight (1d), the ISO week since Monday 00:00 (7d), the calendar
// month (1m) — from its start to the end of the minute that holds `now`. Rollups are kept
// per minute, so a window cannot end inside one; ending after the current minute (rather
// than before it) counts the logs sent a moment ago.
//
// The comparison window covers the same elapsed span, measured in local calendar terms: its
// ends are the current window's ends at the same local clock times, N local days earlier.
// Across a DST change the two windows can differ in real length by an hour (yesterday
// 00:00–10:00 on the day clocks sprang forward is 9 hours), which is what "the same time
// yesterday" means to a person reading a dashboard. Two comparisons are not day shifts:
//  - 1h/previous_window is the hour before, in real time (after clocks fall back, the hour
//    before 02:00 CET is 02:00 CEST).
//  - 1m/previous_window is the previous calendar month, from its 1st at 00:00 to the same
//    day of the month and clock time, cut at the end of that month when it is shorter: on
//    31 March at 10:00 it is the whole of February (28 or 29 days), since 31 February
//    10:00 does not exist and the windows must not overlap.
// previous_1m is 30 local days for 1h and 1d, and 28 local days (four whole weeks, so the
// same weekdays) for 7d.
import { invalid } from '../errors.js';
import type { TimeRange } from '../time/range.js';
import { addLocalDays, instantOf, startOfMinute, wallTimeOf, type WallTime } from '../time/zonedTime.js';

export const WINDOW_PERIODS = ['1h', '1d', '7d', '1m'] as const;
export type WindowPeriod = (typeof WINDOW_PERIODS)[number];

export const COMPARISONS = ['previous_window', 'previous_1d', 'previous_7d', 'previous_1m'] as const;
export type Comparison = (typeof COMPARISONS)[number];

/** The comparisons each period supports (docs/api.md, Analytics). */
export const SUPPORTED_COMPARISONS: Readonly<Record<WindowPeriod, readonly Comparison[]>> = {
  '1h': ['previous_window', 'previous_1d', 'previous_7d', 'previous_1m'],
  '1d': ['previous_window', 'previous_7d', 'previous_1m'],
  '7d': ['previous_window', 'previous_1m'],
  '1m': ['previous_window'],
};

export interface ComparedWindows {
  readonly current: TimeRange;
  readonly previous: TimeRange;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/** Local days between a window and its comparison; absent where it is not a day shift. */
const SHIFT_DAYS: Readonly<Record<WindowPeriod, Partial<Record<Comparison, number>>>> = {
  '1h': { previous_1d: 1, previous_7d: 7, previous_1m: 30 },
  '1d': { previous_window: 1, previous_7d: 7, previous_1m: 30 },
  '7d': { previous_window: 7, previous_1m: 28 },
  '1m': {},
};

export function isSupported(period: WindowPeriod, previous: Comparison): boolean {
  return SUPPORTED_COMPARISONS[period].includes(previous);
}

/** Throws 400 unsupported_combination, naming the supported pairs, unless the pair is one. */
export function requireSupported(period: WindowPeriod, previous: Comparison): void {
  if (isSupported(period, previous)) return;
  const pairs = WINDOW_PERIODS.map((p) => `${p} with ${SUPPORTED_COMPARISONS[p].join(', ')}`).join('; ');
  throw invalid('unsupported_combination', `period ${period} cannot be compared with ${previous}. Supported: ${pairs}.`, [
    { path: '/previous', message: `must be one of ${SUPPORTED_COMPARISONS[period].join(', ')} when period is ${period}` },
  ]);
}

/** The wall time at which the current window starts (for 1h: the local clock hour). */
function startWall(now: WallTime & { weekday: number }, period: WindowPeriod): WallTime {
  const { year, month, day } = now;
  switch (period) {
    case '1h':
      return { ...now, minute: 0 };
    case '1d':
      return { year, month, day, hour: 0, minute: 0 };
    case '7d':
      return { year, month, day: day - (now.weekday - 1), hour: 0, minute: 0 };
    case '1m':
      return { year, month, day: 1, hour: 0, minute: 0 };
  }
}

export function comparedWindows(now: number, timezone: string, period: WindowPeriod, previous: Comparison): ComparedWindows {
  requireSupported(period, previous);
  const to = startOfMinute(now) + MINUTE_MS;
  const nowWall = wallTimeOf(timezone, startOfMinute(now));
  const fromWall = startWall(nowWall, period);
  // The clock hour is found in real time: in the hour clocks turn back, 02:00–03:00 happens
  // twice, and its wall time alone would name the first one.
  const from = period === '1h' ? startOfMinute(now) - nowWall.minute * MINUTE_MS : instantOf(timezone, fromWall);
  const current = { from, to };

  if (period === '1h' && previous === 'previous_window') {
    return { current, previous: { from: from - HOUR_MS, to: to - HOUR_MS } };
  }
  const toWall = wallTimeOf(timezone, to);
  if (period === '1m') {
    const monthBefore = (w: WallTime): WallTime => ({ ...w, month: w.month - 1 });
    const previousTo = Math.min(instantOf(timezone, monthBefore(toWall)), from);
    return { current, previous: { from: instantOf(timezone, monthBefore(fromWall)), to: previousTo } };
  }
  const days = SHIFT_DAYS[period][previous]!;
  const previousFrom = instantOf(timezone, addLocalDays(fromWall, -days));
  const previousTo = Math.max(instantOf(timezone, addLocalDays(toWall, -days)), previousFrom);
  return { current, previous: { from: previousFrom, to: previousTo } };
}
