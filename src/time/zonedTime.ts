// Wall-clock time in an IANA timezone, both ways: the local date and time of an instant, and
// the instant of a local date and time. Analytics windows are calendar windows ("today since
// local midnight", "the same clock time a week ago"), so their arithmetic is done on wall
// times and converted back to UTC instants at the end.

export interface WallTime {
  readonly year: number;
  /** 1–12 */
  readonly month: number;
  /** Day of the month. Out-of-range values roll over (day 0 = the last day of the month before). */
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
}

export interface ZonedWallTime extends WallTime {
  /** ISO weekday: 1 = Monday … 7 = Sunday. */
  readonly weekday: number;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timezone, f);
  }
  return f;
}

/** The local wall time as ms since the epoch "as if UTC", at a whole second. */
function localMsAt(timezone: string, epochMs: number): number {
  const seconds = Math.floor(epochMs / 1000) * 1000;
  const parts: Record<string, number> = {};
  for (const p of formatterFor(timezone).formatToParts(new Date(seconds))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

/** UTC offset of `timezone` at `epochMs`, in ms (east positive: +05:30 → 19 800 000). */
export function offsetAt(timezone: string, epochMs: number): number {
  const seconds = Math.floor(epochMs / 1000) * 1000;
  return localMsAt(timezone, seconds) - seconds;
}

/** The local date and time of an instant, to the minute. */
export function wallTimeOf(timezone: string, epochMs: number): ZonedWallTime {
  const local = new Date(epochMs + offsetAt(timezone, epochMs));
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    weekday: ((local.getUTCDay() + 6) % 7) + 1,
  };
}

/**
 * The instant of a local date and time. Where the clock time occurs twice (clocks turned
 * back) it is the earlier instant; where it does not occur (clocks jumped forward) it is
 * moved forward by the length of the jump, so 02:30 on a spring-forward night at 02:00 is
 * 03:30, and a day whose midnight is skipped starts at the first instant it has. This is
 * the "compatible" rule of RFC 5545 and JavaScript's Temporal.
 */
export function instantOf(timezone: string, wall: WallTime): number {
  const local = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  // Offsets a day either side bracket any single transition near this wall time.
  const before = offsetAt(timezone, local - DAY_MS);
  const after = offsetAt(timezone, local + DAY_MS);
  const candidates = [local - before, local - after].filter((t) => t + offsetAt(timezone, t) === local).sort((a, b) => a - b);
  return candidates[0] ?? local - before;
}

/** The same wall time `days` local days later (negative: earlier). */
export function addLocalDays(wall: WallTime, days: number): WallTime {
  return { ...wall, day: wall.day + days };
}

/** Start of the minute that contains `epochMs`. */
export function startOfMinute(epochMs: number): number {
  return Math.floor(epochMs / MINUTE_MS) * MINUTE_MS;
}
