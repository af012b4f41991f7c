// What can be done with schedules and their overrides, by an HTTP route or a worker alike.
// Every function takes the workspace: another workspace's schedule is simply not found, and
// a schedule may name only the workspace's own people.
import { conflict, invalid, notFound, validationFailed, type ErrorDetail } from '../errors.js';
import type { PageOrAll } from '../page.js';
import type { Queryable } from '../stores/postgres.js';
import { instantProblem, type LayerInput, layerOf, layerProblems, overrideSpanProblems, timezoneProblem } from './checks.js';
import { type Override, ONCALL_LIMITS, type Schedule, type ScheduleFields } from './model.js';
import { escalationPoliciesWords, type OnCallDeps } from './people.js';
import { lockAndCount, unknownPeople } from './peopleStore.js';
import {
  countOverrides,
  deleteOverrideRow,
  deleteScheduleRow,
  findOverride,
  findSchedule,
  insertOverride,
  insertSchedule,
  listOverrideRows,
  listScheduleRows,
  firstOverrideOverlapping,
  replaceIcalTokenRow,
  updateScheduleRow,
} from './scheduleStore.js';

export interface ScheduleInput {
  readonly name: string;
  readonly timezone: string;
  readonly layers: readonly LayerInput[];
  readonly notify_handoffs?: boolean;
}

/** Checks the fields as sent and those that need the store, then fills in the defaults. */
async function checkedFields(deps: OnCallDeps, db: Queryable, workspaceId: string, input: ScheduleInput): Promise<ScheduleFields> {
  const problems: ErrorDetail[] = [...timezoneProblem('/timezone', input.timezone, deps.timezones), ...layerProblems(input.layers)];
  const members = input.layers.flatMap((l) => l.members.map((m) => m.toLowerCase()));
  const unknown = await unknownPeople(db, workspaceId, members);
  input.layers.forEach((l, i) => {
    l.members.forEach((m, j) => {
      if (unknown.has(m.toLowerCase())) problems.push({ path: `/layers/${i}/members/${j}`, message: 'is not a person of this workspace' });
    });
  });
  if (problems.length > 0) throw validationFailed(problems);
  return {
    name: input.name,
    timezone: input.timezone,
    layers: input.layers.map((l) => layerOf(l, input.timezone)),
    notify_handoffs: input.notify_handoffs ?? false,
  };
}

export async function createSchedule(deps: OnCallDeps, workspaceId: string, input: ScheduleInput): Promise<Schedule> {
  return deps.postgres.transaction(async (tx) => {
    const fields = await checkedFields(deps, tx, workspaceId, input);
    if ((await lockAndCount(tx, workspaceId, 'schedules')) >= deps.maxSchedules) {
      throw conflict('schedule_limit_reached', `The workspace has reached its limit of ${deps.maxSchedules} schedules.`);
    }
    return insertSchedule(tx, workspaceId, fields);
  });
}

export async function getSchedule(db: Queryable, workspaceId: string, id: string): Promise<Schedule> {
  const found = await findSchedule(db, workspaceId, id);
  if (!found) throw notFound('schedule');
  return found;
}

/** Newest first: without a limit, every schedule of the workspace. */
export function listSchedules(db: Queryable, workspaceId: string, page: PageOrAll): Promise<Schedule[]> {
  return listScheduleRows(db, workspaceId, page);
}

/** Applies any subset of the fields; layers are replaced whole. A handoff left out is the local time of the layer's start. */
export async function updateSchedule(deps: OnCallDeps, workspaceId: string, id: string, changes: Partial<ScheduleInput>): Promise<Schedule> {
  return deps.postgres.transaction(async (tx) => {
    const current = await findSchedule(tx, workspaceId, id, true);
    if (!current) throw notFound('schedule');
    const fields = await checkedFields(deps, tx, workspaceId, {
      name: changes.name ?? current.name,
      timezone: changes.timezone ?? current.timezone,
      layers: changes.layers ?? current.layers,
      notify_handoffs: changes.notify_handoffs ?? current.notify_handoffs,
    });
    return updateScheduleRow(tx, workspaceId, id, fields);
  });
}

/** Deletes the schedule and its overrides; 409 schedule_in_use while an escalation step pages it. */
export async function deleteSchedule(deps: OnCallDeps, workspaceId: string, id: string): Promise<void> {
  await deps.postgres.transaction(async (tx) => {
    // Locked first: a step naming it that commits meanwhile holds a shared lock, so this waits and then sees it.
    if (!(await findSchedule(tx, workspaceId, id, true))) throw notFound('schedule');
    const paging = (await deps.pagedBy?.(tx, workspaceId, { kind: 'schedule', id })) ?? [];
    if (paging.length > 0) {
      throw conflict('schedule_in_use', `The schedule is paged by ${escalationPoliciesWords(paging)}; take it out of its steps (schedule_ids) first.`);
    }
    await deleteScheduleRow(tx, workspaceId, id);
  });
}

/** A new calendar feed token: links made with the old one stop working at once. */
export async function replaceIcalToken(db: Queryable, workspaceId: string, id: string): Promise<Schedule> {
  const updated = await replaceIcalTokenRow(db, workspaceId, id);
  if (!updated) throw notFound('schedule');
  return updated;
}

export interface NewOverride {
  readonly person_id: string;
  readonly starts_at: Date;
  readonly ends_at: Date;
}

/**
 * Adds an override to the schedule. Two overrides of one schedule never cover the same
 * instant: one that overlaps another (touching is fine) is refused with 400 naming the other.
 */
export async function createOverride(deps: OnCallDeps, workspaceId: string, scheduleId: string, input: NewOverride): Promise<Override> {
  const fields = { ...input, person_id: input.person_id.toLowerCase() };
  const spanProblems = overrideSpanProblems(fields.starts_at, fields.ends_at);
  return deps.postgres.transaction(async (tx) => {
    // The schedule's lock serialises the overlap check of concurrent creations.
    if (!(await findSchedule(tx, workspaceId, scheduleId, true))) throw notFound('schedule');
    const problems = [...spanProblems];
    if ((await unknownPeople(tx, workspaceId, [fields.person_id])).size > 0) {
      problems.push({ path: '/person_id', message: 'is not a person of this workspace' });
    }
    if (problems.length === 0) {
      const clash = await firstOverrideOverlapping(tx, scheduleId, { from: fields.starts_at.getTime(), to: fields.ends_at.getTime() });
      if (clash) {
        problems.push({
          path: '/starts_at',
          message: `overlaps the override ${clash.override_id} (${clash.starts_at.toISOString()} to ${clash.ends_at.toISOString()}); overrides of a schedule may not cover the same instant`,
        });
      }
    }
    if (problems.length > 0) throw validationFailed(problems);
    if ((await countOverrides(tx, scheduleId)) >= ONCALL_LIMITS.overridesPerSchedule) {
      throw conflict(
        'override_limit_reached',
        `The schedule has reached its limit of ${ONCALL_LIMITS.overridesPerSchedule} overrides; delete those that have ended.`,
      );
    }
    return insertOverride(tx, scheduleId, fields);
  });
}

export async function listOverrides(db: Queryable, workspaceId: string, scheduleId: string, page: PageOrAll): Promise<Override[]> {
  await getSchedule(db, workspaceId, scheduleId);
  return listOverrideRows(db, scheduleId, page);
}

export async function getOverride(db: Queryable, workspaceId: string, scheduleId: string, overrideId: string): Promise<Override> {
  await getSchedule(db, workspaceId, scheduleId);
  const found = await findOverride(db, scheduleId, overrideId);
  if (!found) throw notFound('override');
  return found;
}

export async function deleteOverride(db: Queryable, workspaceId: string, scheduleId: string, overrideId: string): Promise<void> {
  await getSchedule(db, workspaceId, scheduleId);
  if (!(await deleteOverrideRow(db, scheduleId, overrideId))) throw notFound('override');
}

/** 400 unless [from, to) is a range of at most `maxDays` days, each end within the stores' years. */
export function requireShiftRange(from: Date, to: Date, maxDays: number = ONCALL_LIMITS.shiftRangeDays): void {
  const problems = [...instantProblem('/from', from), ...instantProblem('/to', to)];
  if (to.getTime() <= from.getTime()) problems.push({ path: '/to', message: 'must be after from' });
  else if (to.getTime() - from.getTime() > maxDays * 86_400_000) problems.push({ path: '/to', message: `must be at most ${maxDays} days after from` });
  if (problems.length > 0) throw invalid('invalid_range', problems.map((p) => `${p.path.slice(1)} ${p.message}`).join('; '), problems);
}
