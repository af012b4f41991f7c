// The turns of one layer and the local windows of its restriction, as UTC instants. Pure:
// no store, no clock. Local times are the schedule's timezone's wall clock, DST-aware: a
// 09:00 handoff is at 09:00 local on both sides of a change (a day of 23 or 25 hours lies
// between two handoffs), and a local time that a spring-forward jump skips is moved forward
// by the jump (02:30 on a night that jumps at 02:00 is 03:30), as RFC 5545 and Temporal do.
import type { TimeRange } from '../time/range.js';
import { minutesOf, WEEKDAYS } from '../time/weekly.js';
import { instantOf, wallTimeOf } from '../time/zonedTime.js';
import type { Layer, Restriction } from './model.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** One member's turn: [start, end), and the index of the member in the layer's list. */
export interface Turn extends TimeRange {
  readonly member: number;
}

/** A local date: `day` may run past the month's end (it rolls over, as in Date.UTC). */
interface LocalDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

// The same local instants are asked for again and again (every layer, every request of a
// schedule): each costs a few Intl look-ups, so they are kept. Bounded; cleared when full.
const instants = new Map<string, number>();
const MAX_CACHED_INSTANTS = 50_000;

/** The instant of `date` + `days` at `minutes` after local midnight (1440: the next midnight). */
function localInstant(timezone: string, date: LocalDate, days: number, minutes: number): number {
  const key = `${timezone} ${date.year} ${date.month} ${date.day + days} ${minutes}`;
  let at = instants.get(key);
  if (at === undefined) {
    const hour = Math.floor(minutes / 60);
    at = instantOf(timezone, { year: date.year, month: date.month, day: date.day + days + Math.floor(hour / 24), hour: hour % 24, minute: minutes % 60 });
    if (instants.size >= MAX_CACHED_INSTANTS) instants.clear();
    instants.set(key, at);
  }
  return at;
}

const localDateOf = (timezone: string, at: number): LocalDate => {
  const w = wallTimeOf(timezone, at);
  return { year: w.year, month: w.month, day: w.day };
};

/** Mon = 0 … Sun = 6, of `date` + `days`. */
const weekdayIndex = (date: LocalDate, days: number) => (new Date(Date.UTC(date.year, date.month - 1, date.day + days)).getUTCDay() + 6) % 7;

/**
 * Where a layer's turns begin and how long they are. An `hours` rotation turns every
 * `length` hours from `start`; a daily or weekly one at the local `handoff` time every
 * `length` days or weeks, counted from the local date of `start`. The member on call at
 * `start` is the first one: a start between two handoffs gives them the rest of that turn.
 */
class TurnClock {
  /** The instant turn `k` begins (turn 0: the one that holds `start`, or begins at it). */
  readonly boundary: (k: number) => number;
  /** A typical turn, in ms: turn k begins about k of these after turn 0. */
  readonly approxMs: number;

  constructor(
    readonly layer: Layer,
    timezone: string,
  ) {
    const start = layer.start.getTime();
    const { type, length, handoff } = layer.rotation;
    if (type === 'hours' || handoff === null) {
      this.approxMs = length * HOUR_MS;
      this.boundary = (k) => start + k * this.approxMs;
      return;
    }
    const stepDays = type === 'weekly' ? 7 * length : length;
    const date = localDateOf(timezone, start);
    const minutes = minutesOf(handoff);
    // The handoff on the start's own date may come after the start: the turn holding the
    // start then began one step earlier.
    const first = localInstant(timezone, date, 0, minutes) <= start ? 0 : -1;
    this.approxMs = stepDays * DAY_MS;
    this.boundary = (k) => localInstant(timezone, date, (k + first) * stepDays, minutes);
  }

  /** The index of the turn that holds `at` (-1 before `start`'s turn… any index; callers clamp). */
  turnAt(at: number): number {
    let k = Math.floor((at - this.boundary(0)) / this.approxMs);
    // A DST change moves a boundary by an hour or two, never by a turn: one step either way.
    while (this.boundary(k) > at) k--;
    while (this.boundary(k + 1) <= at) k++;
    return k;
  }
}

/** The layer's whole turns that overlap [from, to), oldest first; none before its start (the first one begins at `start`). */
export function turnsOverlapping(layer: Layer, timezone: string, range: TimeRange): Turn[] {
  const start = layer.start.getTime();
  if (range.to <= start) return [];
  const clock = new TurnClock(layer, timezone);
  const n = layer.members.length;
  const turns: Turn[] = [];
  for (let k = Math.max(0, clock.turnAt(Math.max(range.from, start))); ; k++) {
    const from = Math.max(start, clock.boundary(k));
    if (from >= range.to) break;
    turns.push({ from, to: clock.boundary(k + 1), member: k % n });
  }
  return turns;
}

/** The span of the layer's turn that holds `at` (its first turn before `start`). */
export function turnAround(layer: Layer, timezone: string, at: number): TimeRange {
  const clock = new TurnClock(layer, timezone);
  const k = Math.max(0, clock.turnAt(Math.max(at, layer.start.getTime())));
  return { from: Math.max(layer.start.getTime(), clock.boundary(k)), to: clock.boundary(k + 1) };
}

/**
 * The restriction's local windows that overlap [from, to), oldest first: on each listed
 * weekday from `start` to `end`, an end not after the start running into the next day. A
 * window that a DST jump leaves empty is dropped; windows that meet are one.
 */
export function restrictionWindows(restriction: Restriction, timezone: string, range: TimeRange): TimeRange[] {
  const startMinutes = minutesOf(restriction.start);
  const endMinutes = minutesOf(restriction.end);
  const overnight = endMinutes <= startMinutes;
  const days = new Set(restriction.days.map((d) => WEEKDAYS.indexOf(d)));
  // From the day before `from`'s local date, whose overnight window may reach past it.
  const date = localDateOf(timezone, range.from);
  const windows: TimeRange[] = [];
  for (let i = -1; ; i++) {
    const from = localInstant(timezone, date, i, startMinutes);
    if (from >= range.to) break;
    if (!days.has(weekdayIndex(date, i))) continue;
    const to = localInstant(timezone, date, overnight ? i + 1 : i, endMinutes);
    if (to <= from || to <= range.from) continue;
    // Windows that meet (Saturday to 24:00, Sunday from 00:00) are one stretch.
    const last = windows[windows.length - 1];
    if (last && last.to === from) windows[windows.length - 1] = { from: last.from, to };
    else windows.push({ from, to });
  }
  return windows;
}
