// What can be done with policies, by an HTTP route or a worker alike. Every function takes
// the workspace: another workspace's policy, or event, is simply not found.
import { notFound, validationFailed } from '../errors.js';
import type { Page } from '../page.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import type { Policy, PolicyFields } from './model.js';
import { deletePolicyRow, eventExists, findPolicy, insertPolicy, listPolicyRows, updatePolicyRow } from './store.js';

export type NewPolicy = Omit<PolicyFields, 'description' | 'channel' | 'enabled'> & Partial<Pick<PolicyFields, 'description' | 'channel' | 'enabled'>>;

/** JSON cannot carry NaN or Infinity, but 1e999 parses to Infinity. */
function requireFiniteThreshold(threshold: number | undefined): void {
  if (threshold !== undefined && !Number.isFinite(threshold)) {
    throw validationFailed([{ path: '/threshold', message: 'must be a finite number' }]);
  }
}

async function requireEvent(db: Queryable, workspaceId: string, eventId: string): Promise<void> {
  if (!(await eventExists(db, workspaceId, eventId))) throw notFound('event definition');
}

export async function createPolicy(db: PostgresStore, workspaceId: string, input: NewPolicy): Promise<Policy> {
  requireFiniteThreshold(input.threshold);
  return db.transaction(async (tx) => {
    await requireEvent(tx, workspaceId, input.event_id);
    return insertPolicy(tx, workspaceId, {
      ...input,
      description: input.description ?? '',
      channel: input.channel ?? 'default',
      enabled: input.enabled ?? true,
    });
  });
}

export async function getPolicy(db: Queryable, workspaceId: string, policyId: string): Promise<Policy> {
  const policy = await findPolicy(db, workspaceId, policyId);
  if (!policy) throw notFound('policy');
  return policy;
}

export function listPolicies(db: Queryable, workspaceId: string, page: Page): Promise<Policy[]> {
  return listPolicyRows(db, workspaceId, page);
}

/**
 * Applies the given changes. A policy that now watches another event or period, or that
 * is enabled again, restarts its evaluation from the last closed bucket (evaluated_until
 * back to NULL): buckets of the old rule, or of the time it was off, are not evaluated.
 */
export async function updatePolicy(db: PostgresStore, workspaceId: string, policyId: string, changes: Partial<PolicyFields>): Promise<Policy> {
  requireFiniteThreshold(changes.threshold);
  return db.transaction(async (tx) => {
    const current = await findPolicy(tx, workspaceId, policyId, true);
    if (!current) throw notFound('policy');
    if (changes.event_id !== undefined && changes.event_id !== current.event_id) await requireEvent(tx, workspaceId, changes.event_id);
    const restarts =
      (changes.event_id !== undefined && changes.event_id !== current.event_id) ||
      (changes.period !== undefined && changes.period !== current.period) ||
      (changes.enabled === true && !current.enabled);
    return updatePolicyRow(tx, workspaceId, policyId, changes, restarts);
  });
}

/** Deletes the policy; its alerts stay (they copy the rule) and can still be resolved or archived. */
export async function deletePolicy(db: Queryable, workspaceId: string, policyId: string): Promise<void> {
  if (!(await deletePolicyRow(db, workspaceId, policyId))) throw notFound('policy');
}
