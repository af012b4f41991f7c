// What can be done with escalation policies, by an HTTP route or a worker alike. Every
// function takes the workspace: another workspace's escalation policy is simply not found,
// and a step may name only the workspace's own destinations.
import { conflict, type ErrorDetail, notFound, validationFailed } from '../errors.js';
import { unknownReferences } from '../oncall/references.js';
import type { PageOrAll } from '../page.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import type { EscalationPolicy, EscalationPolicyFields, EscalationStep } from './model.js';
import {
  alertSourcesNaming,
  deleteEscalationPolicyRow,
  escalationPoliciesNaming,
  findEscalationPolicy,
  insertEscalationPolicy,
  listEscalationPolicyRows,
  lockAndCountEscalationPolicies,
  policiesByEscalationPolicy,
  policiesNaming,
  unknownDestinationIds,
  updateEscalationPolicyRow,
} from './store.js';

/** A step as a client sends it: schedule_ids and person_ids may be left out. */
export type StepInput = Pick<EscalationStep, 'after_minutes'> & Partial<Pick<EscalationStep, 'destination_ids' | 'schedule_ids' | 'person_ids'>>;
export type EscalationPolicyInput = Omit<EscalationPolicyFields, 'steps'> & { readonly steps: readonly StepInput[] };

const distinct = (ids: readonly string[] | undefined) => [...new Set((ids ?? []).map((id) => id.toLowerCase()))];

/** Ids lower-cased and each named once per list, in the order given; lists left out are empty. */
function normalized(fields: EscalationPolicyInput): EscalationPolicyFields {
  return {
    name: fields.name,
    repeat: fields.repeat,
    steps: fields.steps.map((s) => ({
      after_minutes: s.after_minutes,
      destination_ids: distinct(s.destination_ids),
      schedule_ids: distinct(s.schedule_ids),
      person_ids: distinct(s.person_ids),
    })),
  };
}

const TARGETS = [
  { list: 'destination_ids', what: 'a destination' },
  { list: 'schedule_ids', what: 'a schedule' },
  { list: 'person_ids', what: 'a person' },
] as const;

/**
 * 400 for a step with no target at all, and for each id that is not the workspace's
 * destination, schedule or person, with its path. The schedules and people named are locked
 * (shared) until the transaction ends: a delete beside it waits, then sees this policy (409).
 */
async function requireOwnTargets(db: Queryable, workspaceId: string, fields: EscalationPolicyFields): Promise<void> {
  const all = (list: (typeof TARGETS)[number]['list']) => fields.steps.flatMap((s) => s[list]);
  const unknownDestinations = await unknownDestinationIds(db, workspaceId, all('destination_ids'));
  const { people, schedules } = await unknownReferences(db, workspaceId, { personIds: all('person_ids'), scheduleIds: all('schedule_ids') });
  const unknown = { destination_ids: unknownDestinations, schedule_ids: schedules, person_ids: people };
  const problems: ErrorDetail[] = [];
  fields.steps.forEach((s, i) => {
    if (TARGETS.every((t) => s[t.list].length === 0)) {
      problems.push({ path: `/steps/${i}`, message: 'must name at least one destination, schedule or person (destination_ids, schedule_ids, person_ids)' });
    }
    for (const t of TARGETS) {
      s[t.list].forEach((id, j) => {
        if (unknown[t.list].has(id)) problems.push({ path: `/steps/${i}/${t.list}/${j}`, message: `is not ${t.what} of this workspace` });
      });
    }
  });
  if (problems.length > 0) throw validationFailed(problems);
}

export async function createEscalationPolicy(
  db: PostgresStore,
  workspaceId: string,
  input: EscalationPolicyInput,
  maxPerWorkspace: number,
): Promise<EscalationPolicy> {
  const fields = normalized(input);
  return db.transaction(async (tx) => {
    await requireOwnTargets(tx, workspaceId, fields);
    if ((await lockAndCountEscalationPolicies(tx, workspaceId)) >= maxPerWorkspace) {
      throw conflict('escalation_policy_limit_reached', `The workspace has reached its limit of ${maxPerWorkspace} escalation policies.`);
    }
    return insertEscalationPolicy(tx, workspaceId, fields);
  });
}

export async function getEscalationPolicy(db: Queryable, workspaceId: string, id: string): Promise<EscalationPolicy> {
  const found = await findEscalationPolicy(db, workspaceId, id);
  if (!found) throw notFound('escalation policy');
  return found;
}

/** Newest first: without a limit, every escalation policy of the workspace. */
export function listEscalationPolicies(db: Queryable, workspaceId: string, page: PageOrAll): Promise<EscalationPolicy[]> {
  return listEscalationPolicyRows(db, workspaceId, page);
}

/** The escalation policies of the workspace whose steps name the person or the schedule (oncall's deletes refuse while any does). */
export function escalationPoliciesPaging(
  db: Queryable,
  workspaceId: string,
  target: { readonly kind: 'person' | 'schedule'; readonly id: string },
): Promise<string[]> {
  return escalationPoliciesNaming(db, workspaceId, target);
}

/** The ids of the policies that name each escalation policy of the workspace. */
export function escalationPolicyUsers(db: Queryable, workspaceId: string): Promise<Map<string, string[]>> {
  return policiesByEscalationPolicy(db, workspaceId);
}

/** Applies any subset of the fields; chains under way take the new steps from their next step on. */
export async function updateEscalationPolicy(
  db: PostgresStore,
  workspaceId: string,
  id: string,
  changes: Partial<EscalationPolicyInput>,
): Promise<EscalationPolicy> {
  return db.transaction(async (tx) => {
    const current = await findEscalationPolicy(tx, workspaceId, id, true);
    if (!current) throw notFound('escalation policy');
    const fields = normalized({ name: changes.name ?? current.name, steps: changes.steps ?? current.steps, repeat: changes.repeat ?? current.repeat });
    if (changes.steps !== undefined) await requireOwnTargets(tx, workspaceId, fields);
    return updateEscalationPolicyRow(tx, workspaceId, id, fields);
  });
}

/** 409 escalation_policy_in_use while a policy or an alert source names it (the error lists them). */
export async function deleteEscalationPolicy(db: PostgresStore, workspaceId: string, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const current = await findEscalationPolicy(tx, workspaceId, id, true);
    if (!current) throw notFound('escalation policy');
    const users = [
      ...(await policiesNaming(tx, workspaceId, id)).map((p) => `policy ${p}`),
      ...(await alertSourcesNaming(tx, workspaceId, id)).map((s) => `alert source ${s}`),
    ];
    if (users.length > 0) {
      throw conflict(
        'escalation_policy_in_use',
        `The escalation policy is named by ${users.length === 1 ? 'one policy or alert source' : `${users.length} policies and alert sources`} (${users.slice(0, 10).join(', ')}${users.length > 10 ? ', …' : ''}); set their escalation_policy_id to null or another one first.`,
      );
    }
    await deleteEscalationPolicyRow(tx, workspaceId, id);
  });
}
