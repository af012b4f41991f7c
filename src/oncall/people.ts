// What can be done with people, by an HTTP route or a worker alike. Every function takes
// the workspace: another workspace's person is simply not found, and a person is reached
// only through the workspace's own destinations.
import { conflict, notFound, validationFailed, type ErrorDetail } from '../errors.js';
import type { PageOrAll } from '../page.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import { type TimezoneNames, timezoneProblem } from './checks.js';
import type { Person, PersonFields } from './model.js';
import type { ReferencesTo } from './references.js';
import {
  deletePersonRow,
  findPeople,
  findPerson,
  insertPerson,
  listPeopleRows,
  lockAndCount,
  schedulesNaming,
  unknownDestinations,
  updatePersonRow,
} from './peopleStore.js';

export interface OnCallDeps {
  readonly postgres: PostgresStore;
  /** The IANA names schedules and people may use (the same ones events may). */
  readonly timezones: TimezoneNames;
  /** People and schedules one workspace may keep. */
  readonly maxPeople: number;
  readonly maxSchedules: number;
  /** The clock (tests); defaults to Date.now. */
  readonly now?: () => number;
  /** The escalation policies that page a person or a schedule (wired by the composition root: escalation stands on on-call, not the reverse). */
  readonly pagedBy?: ReferencesTo;
}

/** "one escalation policy (id)" / "3 escalation policies (id, id, …)". */
export function escalationPoliciesWords(ids: readonly string[]): string {
  return `${ids.length === 1 ? 'one escalation policy' : `${ids.length} escalation policies`} (${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ', …' : ''})`;
}

export type NewPerson = Omit<PersonFields, 'timezone'> & { readonly timezone?: string };

/** Ids lower-cased and each named once, in the order given. */
const normalized = (fields: PersonFields): PersonFields => ({ ...fields, destination_ids: [...new Set(fields.destination_ids.map((id) => id.toLowerCase()))] });

async function check(deps: OnCallDeps, db: Queryable, workspaceId: string, fields: PersonFields): Promise<void> {
  const problems: ErrorDetail[] = timezoneProblem('/timezone', fields.timezone, deps.timezones);
  const unknown = await unknownDestinations(db, workspaceId, fields.destination_ids);
  fields.destination_ids.forEach((id, i) => {
    if (unknown.has(id)) problems.push({ path: `/destination_ids/${i}`, message: 'is not a destination of this workspace' });
  });
  if (problems.length > 0) throw validationFailed(problems);
}

export async function createPerson(deps: OnCallDeps, workspaceId: string, input: NewPerson): Promise<Person> {
  const fields = normalized({ name: input.name, timezone: input.timezone ?? 'UTC', destination_ids: input.destination_ids });
  return deps.postgres.transaction(async (tx) => {
    await check(deps, tx, workspaceId, fields);
    if ((await lockAndCount(tx, workspaceId, 'people')) >= deps.maxPeople) {
      throw conflict('person_limit_reached', `The workspace has reached its limit of ${deps.maxPeople} people.`);
    }
    return insertPerson(tx, workspaceId, fields);
  });
}

export async function getPerson(db: Queryable, workspaceId: string, id: string): Promise<Person> {
  const found = await findPerson(db, workspaceId, id);
  if (!found) throw notFound('person');
  return found;
}

/** The workspace's people among `ids` (others left out), for a step that pages people by id. */
export function peopleAmong(db: Queryable, workspaceId: string, ids: readonly string[]): Promise<Person[]> {
  return ids.length === 0 ? Promise.resolve([]) : findPeople(db, workspaceId, ids);
}

/** Newest first: without a limit, every person of the workspace. */
export function listPeople(db: Queryable, workspaceId: string, page: PageOrAll): Promise<Person[]> {
  return listPeopleRows(db, workspaceId, page);
}

export async function updatePerson(deps: OnCallDeps, workspaceId: string, id: string, changes: Partial<PersonFields>): Promise<Person> {
  return deps.postgres.transaction(async (tx) => {
    const current = await findPerson(tx, workspaceId, id, true);
    if (!current) throw notFound('person');
    const fields = normalized({
      name: changes.name ?? current.name,
      timezone: changes.timezone ?? current.timezone,
      destination_ids: changes.destination_ids ?? current.destination_ids,
    });
    await check(deps, tx, workspaceId, fields);
    return updatePersonRow(tx, workspaceId, id, fields);
  });
}

/**
 * 409 person_in_use while a schedule names the person (in a layer, or in an override that
 * has not ended) or an escalation step pages them.
 */
export async function deletePerson(deps: OnCallDeps, workspaceId: string, id: string): Promise<void> {
  await deps.postgres.transaction(async (tx) => {
    if (!(await findPerson(tx, workspaceId, id, true))) throw notFound('person');
    const paging = (await deps.pagedBy?.(tx, workspaceId, { kind: 'person', id })) ?? [];
    if (paging.length > 0) {
      throw conflict('person_in_use', `The person is paged by ${escalationPoliciesWords(paging)}; take them out of its steps (person_ids) first.`);
    }
    const users = await schedulesNaming(tx, workspaceId, id, new Date(deps.now?.() ?? Date.now()));
    if (users.length > 0) {
      throw conflict(
        'person_in_use',
        `The person is named by ${users.length} ${users.length === 1 ? 'schedule' : 'schedules'} (${users.slice(0, 10).join(', ')}${users.length > 10 ? ', …' : ''}); take them out of its layers and overrides first.`,
      );
    }
    await deletePersonRow(tx, workspaceId, id);
  });
}
