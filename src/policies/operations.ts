// What can be done with policies, by an HTTP route or a worker alike. Every function takes
// the workspace: another workspace's policy, or event, is simply not found.
import { conflict, notFound, validationFailed } from '../errors.js';
import type { PageOrAll } from '../page.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import { POLICY_DEFAULTS, VERDICT_FIELDS, type Policy, type PolicyFields } from './model.js';
import { ruleProblems, type RuleFields } from './ruleChecks.js';
import {
  deletePolicyRow,
  escalationPolicyExists,
  eventExists,
  findPolicy,
  insertPolicy,
  listPolicyRows,
  lockAndCountPolicies,
  updatePolicyRow,
} from './store.js';

/** A create request: the required fields, and any of those with a default. */
export type NewPolicy = Omit<PolicyFields, keyof typeof POLICY_DEFAULTS> & Partial<Pick<PolicyFields, keyof typeof POLICY_DEFAULTS>>;

/** A create request with its defaults filled in. */
export const withDefaults = (input: NewPolicy): PolicyFields => ({ ...POLICY_DEFAULTS, ...input });

/** 400 naming each field of a rule that does not hold together. */
export function requireValidRule(rule: RuleFields): void {
  const problems = ruleProblems(rule);
  if (problems.length > 0) throw validationFailed(problems);
}

/** 404 when the escalation policy is not the workspace's (null names none). */
async function requireEscalationPolicy(db: Queryable, workspaceId: string, id: string | null | undefined): Promise<void> {
  if (id === null || id === undefined) return;
  if (!(await escalationPolicyExists(db, workspaceId, id))) throw notFound('escalation policy');
}

export async function requireEvent(db: Queryable, workspaceId: string, eventId: string): Promise<void> {
  if (!(await eventExists(db, workspaceId, eventId))) throw notFound('event definition');
}

/** Creates a policy; past `maxPerWorkspace` policies in the workspace, 409 policy_limit_reached. */
export async function createPolicy(db: PostgresStore, workspaceId: string, input: NewPolicy, maxPerWorkspace: number): Promise<Policy> {
  const fields = withDefaults(input);
  requireValidRule(fields);
  return db.transaction(async (tx) => {
    await requireEvent(tx, workspaceId, fields.event_id);
    await requireEscalationPolicy(tx, workspaceId, fields.escalation_policy_id);
    if ((await lockAndCountPolicies(tx, workspaceId)) >= maxPerWorkspace) {
      throw conflict('policy_limit_reached', `The workspace has reached its limit of ${maxPerWorkspace} policies; delete policies it no longer needs.`);
    }
    return insertPolicy(tx, workspaceId, fields);
  });
}

export async function getPolicy(db: Queryable, workspaceId: string, policyId: string): Promise<Policy> {
  const policy = await findPolicy(db, workspaceId, policyId);
  if (!policy) throw notFound('policy');
  return policy;
}

export function listPolicies(db: Queryable, workspaceId: string, page: PageOrAll): Promise<Policy[]> {
  return listPolicyRows(db, workspaceId, page);
}

/**
 * Applies the given changes, checked together with the fields they leave unchanged. A policy
 * that now watches another event or period, or that is enabled again, restarts its
 * evaluation from the last closed bucket (evaluated_until back to NULL): buckets of the old
 * rule, or of the time it was off, are not evaluated. A change to what decides a bucket's
 * verdict ends a pending run counted under the old rule.
 */
export async function updatePolicy(db: PostgresStore, workspaceId: string, policyId: string, changes: Partial<PolicyFields>): Promise<Policy> {
  return db.transaction(async (tx) => {
    const current = await findPolicy(tx, workspaceId, policyId, true);
    if (!current) throw notFound('policy');
    requireValidRule({ ...current, ...definedOnly(changes) });
    if (changes.event_id !== undefined && changes.event_id !== current.event_id) await requireEvent(tx, workspaceId, changes.event_id);
    if (changes.escalation_policy_id !== current.escalation_policy_id) await requireEscalationPolicy(tx, workspaceId, changes.escalation_policy_id);
    const restarts =
      (changes.event_id !== undefined && changes.event_id !== current.event_id) ||
      (changes.period !== undefined && changes.period !== current.period) ||
      (changes.enabled === true && !current.enabled);
    const rejudges = VERDICT_FIELDS.some((name) => changes[name] !== undefined && changes[name] !== current[name]);
    return updatePolicyRow(tx, workspaceId, policyId, changes, restarts ? 'restart' : rejudges ? 'new_run' : 'keep');
  });
}

/** The changes a client made: an absent field (undefined) keeps the current value; null is a value. */
const definedOnly = <T extends object>(changes: T): Partial<T> => Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as Partial<T>;

/** Deletes the policy; its alerts stay (they copy the rule) and can still be resolved or archived. */
export async function deletePolicy(db: Queryable, workspaceId: string, policyId: string): Promise<void> {
  if (!(await deletePolicyRow(db, workspaceId, policyId))) throw notFound('policy');
}
