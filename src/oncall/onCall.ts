// Who is on call, read from the store and computed (shifts.ts): for the API, the calendar
// feed, and the workers that page the on-call person or announce handoffs. Each function
// reads all the schedules it is given in a fixed number of queries, however many.
import { notFound } from '../errors.js';
import { linkTokenMatches } from '../linkTokens.js';
import type { Queryable } from '../stores/postgres.js';
import type { TimeRange } from '../time/range.js';
import { ONCALL_LIMITS, OVERRIDE_LAYER, type Person, type Schedule, type Shift } from './model.js';
import { findPeople } from './peopleStore.js';
import { findScheduleById, findSchedules, overrideSpansOverlapping, schedulesNotifyingHandoffs } from './scheduleStore.js';
import { computationSpan, computeShifts, type OverrideSpan } from './shifts.js';

const DAY_MS = 86_400_000;

/** The shifts of each schedule that overlap `range`, whole: one query for the overrides of them all. */
async function shiftsOfSchedules(db: Queryable, schedules: readonly Schedule[], range: TimeRange): Promise<Map<string, Shift[]>> {
  const result = new Map<string, Shift[]>();
  if (schedules.length === 0) return result;
  const spans = schedules.map((s) => computationSpan(s, range));
  const span = { from: Math.min(...spans.map((s) => s.from)), to: Math.max(...spans.map((s) => s.to)) };
  const overrides = new Map<string, OverrideSpan[]>();
  for (const o of await overrideSpansOverlapping(
    db,
    schedules.map((s) => s.schedule_id),
    span,
  )) {
    const list = overrides.get(o.schedule_id) ?? [];
    list.push(o);
    overrides.set(o.schedule_id, list);
  }
  for (const s of schedules) result.set(s.schedule_id, computeShifts(s, overrides.get(s.schedule_id) ?? [], range));
  return result;
}

/** The final shifts of one schedule that overlap `range`, oldest first, whole. */
export async function shiftsOf(db: Queryable, schedule: Schedule, range: TimeRange): Promise<Shift[]> {
  return (await shiftsOfSchedules(db, [schedule], range)).get(schedule.schedule_id) ?? [];
}

/** What a timeline of a schedule shows: each layer's own shifts (as if alone), the overrides, and the final line. */
export interface Timeline {
  readonly layers: readonly { readonly name: string; readonly shifts: readonly Shift[] }[];
  readonly overrides: readonly Shift[];
  readonly final: readonly Shift[];
}

export async function timelineOf(db: Queryable, schedule: Schedule, range: TimeRange): Promise<Timeline> {
  const final = await shiftsOf(db, schedule, range);
  const overrides = (await overrideSpansOverlapping(db, [schedule.schedule_id], range)).map((o) => ({
    person_id: o.person_id,
    starts_at: o.starts_at,
    ends_at: o.ends_at,
    layer: OVERRIDE_LAYER,
  }));
  const layers = schedule.layers.map((layer) => ({ name: layer.name, shifts: computeShifts({ timezone: schedule.timezone, layers: [layer] }, [], range) }));
  return { layers, overrides, final };
}

/** Who is on call in one schedule at one instant. */
export interface OnCall {
  readonly schedule_id: string;
  /** null: no one (no layer has someone then, and no override). */
  readonly person: Person | null;
  /** The layer's name, "override", or null with no one. */
  readonly layer: string | null;
  /** When this shift ends; with no one, when the next one starts (null: none in the next 90 days). */
  readonly until: Date | null;
}

/**
 * Who is on call at `at` in each of the workspace's schedules among `scheduleIds`, by
 * schedule id (ids that are not the workspace's schedules are left out). The escalation
 * worker calls this when a step that names schedules fires.
 */
export async function whoIsOnCall(db: Queryable, workspaceId: string, scheduleIds: readonly string[], at: Date): Promise<Map<string, OnCall>> {
  const t = at.getTime();
  const schedules = scheduleIds.length === 0 ? [] : await findSchedules(db, workspaceId, scheduleIds);
  const now = await shiftsOfSchedules(db, schedules, { from: t, to: t + 1 });
  const current = new Map(schedules.map((s) => [s.schedule_id, now.get(s.schedule_id)?.find((x) => x.starts_at <= t && t < x.ends_at) ?? null]));
  // Where no one is on call, the next shift says until when.
  const idle = schedules.filter((s) => current.get(s.schedule_id) === null);
  const ahead = await shiftsOfSchedules(db, idle, { from: t, to: t + ONCALL_LIMITS.shiftRangeDays * DAY_MS });
  const people = new Map(
    (
      await findPeople(
        db,
        workspaceId,
        [...current.values()].flatMap((s) => (s ? [s.person_id] : [])),
      )
    ).map((p) => [p.person_id, p]),
  );
  const result = new Map<string, OnCall>();
  for (const s of schedules) {
    const shift = current.get(s.schedule_id) ?? null;
    const next = ahead.get(s.schedule_id)?.find((x) => x.starts_at > t);
    result.set(s.schedule_id, {
      schedule_id: s.schedule_id,
      person: shift ? (people.get(shift.person_id) ?? null) : null,
      layer: shift?.layer ?? null,
      until: shift ? new Date(shift.ends_at) : next ? new Date(next.starts_at) : null,
    });
  }
  return result;
}

/** A shift that starts a handoff: its person takes over from someone else (or from no one). */
export interface ShiftStart extends Shift {
  readonly workspace_id: string;
  readonly schedule_id: string;
}

/**
 * The shifts of every schedule with notify_handoffs whose start lies in (from, to], oldest
 * first: each a handoff, where the person on call changes (a member who is on again in the
 * next turn starts no handoff). The handoff scheduler calls this for each stretch it covers.
 */
export async function shiftStartsIn(db: Queryable, range: TimeRange): Promise<ShiftStart[]> {
  const schedules = await schedulesNotifyingHandoffs(db);
  const shifts = await shiftsOfSchedules(db, schedules, { from: range.from, to: range.to + 1 });
  const starts: ShiftStart[] = [];
  for (const s of schedules) {
    const list = shifts.get(s.schedule_id) ?? [];
    list.forEach((shift, i) => {
      const before = list[i - 1];
      const continues = before !== undefined && before.ends_at === shift.starts_at && before.person_id === shift.person_id;
      if (shift.starts_at > range.from && shift.starts_at <= range.to && !continues) {
        starts.push({ ...shift, workspace_id: s.workspace_id, schedule_id: s.schedule_id });
      }
    });
  }
  return starts.sort((a, b) => a.starts_at - b.starts_at);
}

/** What a calendar feed shows: the schedule, its shifts over the feed's days from `now`, and the names of their people. */
export interface CalendarFeed {
  readonly schedule: Schedule;
  readonly shifts: readonly Shift[];
  readonly names: ReadonlyMap<string, string>;
}

/**
 * The calendar feed of a schedule, for whoever holds its id and token. A wrong token and
 * an unknown schedule are the same not_found, after the same work.
 */
export async function readCalendarFeed(db: Queryable, scheduleId: string, token: string, now: number): Promise<CalendarFeed> {
  const found = await findScheduleById(db, scheduleId);
  const matches = linkTokenMatches(found?.ical_token ?? null, token);
  if (!found || !matches) throw notFound('calendar');
  const shifts = await shiftsOf(db, found, { from: now, to: now + ONCALL_LIMITS.feedDays * DAY_MS });
  const people = await findPeople(db, found.workspace_id, [...new Set(shifts.map((s) => s.person_id))]);
  return { schedule: found, shifts, names: new Map(people.map((p) => [p.person_id, p.name])) };
}
