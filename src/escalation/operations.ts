// What can be done with escalation policies, by an HTTP route or a worker alike. Every
// function takes the workspace: another workspace's escalation policy is simply not found,
// and a step may name only the workspace's own destinations.
import { conflict, notFound, validationFailed } from '../errors.js';
import type { PageOrAll } from '../page.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import type { EscalationPolicy, EscalationPolicyFields } from './model.js';
import {
  deleteEscalationPolicyRow,
  findEscalationPolicy,
  insertEscalationPolicy,
  listEscalationPolicyRows,
  lockAndCountEscalationPolicies,
  policiesByEscalationPolicy,
  policiesNaming,
  unknownDestinationIds,
  updateEscalationPolicyRow,
} from './store.js';

/** Ids lower-cased and each named once per step, in the order given. */
function normalized(fields: EscalationPolicyFields): EscalationPolicyFields {
  return {
    name: fields.name,
    repeat: fields.repeat,
    steps: fields.steps.map((s) => ({ after_minutes: s.after_minutes, destination_ids: [...new Set(s.destination_ids.map((id) => id.toLowerCase()))] })),
  };
}

/** 400 for each destination id that is not one of the workspace's, with its path. */
async function requireOwnDestinations(db: Queryable, workspaceId: string, fields: EscalationPolicyFields): Promise<void> {
  const unknown = await unknownDestinationIds(
    db,
    workspaceId,
    fields.steps.flatMap((s) => s.destination_ids),
  );
  if (unknown.size === 0) return;
  throw validationFailed(
    fields.steps.flatMap((s, i) =>
      s.destination_ids.flatMap((id, j) =>
        unknown.has(id) ? [{ path: `/steps/${i}/destination_ids/${j}`, message: 'is not a destination of this workspace' }] : [],
      ),
    ),
  );
}

export async function createEscalationPolicy(
  db: PostgresStore,
  workspaceId: string,
  input: EscalationPolicyFields,
  maxPerWorkspace: number,
): Promise<EscalationPolicy> {
  const fields = normalized(input);
  return db.transaction(async (tx) => {
    await requireOwnDestinations(tx, workspaceId, fields);
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

/** The ids of the policies that name each escalation policy of the workspace. */
export function escalationPolicyUsers(db: Queryable, workspaceId: string): Promise<Map<string, string[]>> {
  return policiesByEscalationPolicy(db, workspaceId);
}

/** Applies any subset of the fields; chains under way take the new steps from their next step on. */
export async function updateEscalationPolicy(
  db: PostgresStore,
  workspaceId: string,
  id: string,
  changes: Partial<EscalationPolicyFields>,
): Promise<EscalationPolicy> {
  return db.transaction(async (tx) => {
    const current = await findEscalationPolicy(tx, workspaceId, id, true);
    if (!current) throw notFound('escalation policy');
    const fields = normalized({ name: changes.name ?? current.name, steps: changes.steps ?? current.steps, repeat: changes.repeat ?? current.repeat });
    if (changes.steps !== undefined) await requireOwnDestinations(tx, workspaceId, fields);
    return updateEscalationPolicyRow(tx, workspaceId, id, fields);
  });
}

/** 409 escalation_policy_in_use while a policy names it (the error lists them). */
export async function deleteEscalationPolicy(db: PostgresStore, workspaceId: string, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const current = await findEscalationPolicy(tx, workspaceId, id, true);
    if (!current) throw notFound('escalation policy');
    const users = await policiesNaming(tx, workspaceId, id);
    if (users.length > 0) {
      throw conflict(
        'escalation_policy_in_use',
        `The escalation policy is named by ${users.length} ${users.length === 1 ? 'policy' : 'policies'} (${users.slice(0, 10).join(', ')}${users.length > 10 ? ', …' : ''}); set their escalation_policy_id to null or another one first.`,
      );
    }
    await deleteEscalationPolicyRow(tx, workspaceId, id);
  });
}
