// The start of a record's local day in an IANA timezone, as a UTC instant. ClickHouse takes
// only constant timezones, so the day bucket of each record is computed here at ingest.
// A day starts at local midnight; where midnight does not exist (clocks jump forward at
// 00:00, e.g. America/Santiago), it starts at the first instant of that date.
import { offsetAt } from './zonedTime.js';

/** Computed starts of local dates, by timezone and date: they never change in a process. */
const dateStarts = new Map<string, number>();
const MAX_CACHED_DATE_STARTS = 20_000;

/**
 * The UTC instant at which the local date (year, month 0–11, day) begins in `timezone`.
 * Out-of-range days roll over, as in Date.UTC.
 */
export function startOfLocalDate(timezone: string, year: number, month: number, day: number): number {
  const midnight = Date.UTC(year, month, day);
  const key = `${timezone} ${midnight}`;
  let start = dateStarts.get(key);
  if (start === undefined) {
    start = computeStartOfLocalDate(timezone, midnight);
    if (dateStarts.size >= MAX_CACHED_DATE_STARTS) dateStarts.clear();
    dateStarts.set(key, start);
  }
  return start;
}

/** `midnight` is the local date's midnight "as if UTC". */
function computeStartOfLocalDate(timezone: string, midnight: number): number {
  // Guess with the offset at the guess, twice; two different answers mean midnight falls in
  // a gap, and the day begins where the gap ends.
  const firstOffset = offsetAt(timezone, midnight);
  const guess = midnight - firstOffset;
  const offset2 = offsetAt(timezone, guess);
  if (offset2 === firstOffset) return guess;
  const guess2 = midnight - offset2;
  const offset3 = offsetAt(timezone, guess2);
  if (offset3 === offset2) return guess2;
  return midnight - Math.min(offset2, offset3);
}

const DAY_MS = 86_400_000;

interface DayInterval {
  readonly start: number;
  readonly end: number;
}

/** Recently used local days per timezone: records of a batch mostly share a day or two. */
const recentDays = new Map<string, DayInterval[]>();
const RECENT_DAYS_PER_ZONE = 8;

/** The local day of `epochMs` in `timezone`, as [start, end) UTC instants in ms. */
export function localDayOf(timezone: string, epochMs: number): DayInterval {
  if (timezone === 'UTC') {
    const start = Math.floor(epochMs / DAY_MS) * DAY_MS;
    return { start, end: start + DAY_MS };
  }
  let days = recentDays.get(timezone);
  if (!days) {
    days = [];
    recentDays.set(timezone, days);
  }
  const hit = days.find((d) => d.start <= epochMs && epochMs < d.end);
  if (hit) return hit;

  const local = new Date(epochMs + offsetAt(timezone, epochMs));
  const [y, m, d] = [local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate()];
  const start = startOfLocalDate(timezone, y, m, d);
  // Defensive: should the guess ever land after the instant, the instant belongs to the day before.
  const interval = start <= epochMs ? { start, end: startOfLocalDate(timezone, y, m, d + 1) } : { start: startOfLocalDate(timezone, y, m, d - 1), end: start };
  days.unshift(interval);
  if (days.length > RECENT_DAYS_PER_ZONE) days.pop();
  return interval;
}

/** Start of the local day of `epochMs` in `timezone`, in ms since the epoch. */
export function localDayStart(timezone: string, epochMs: number): number {
  return localDayOf(timezone, epochMs).start;
}
