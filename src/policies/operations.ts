// What can be done with policies, by an HTTP route or a worker alike. Every function takes
// the workspace: another workspace's policy, or event, is simply not found.
import { AppError, conflict, notFound, validationFailed } from '../errors.js';
import { newId } from '../ids.js';
import type { PageOrAll } from '../page.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import type { TimezoneCatalog } from '../events/timezones.js';
import { declaredDimensionKeys, subjectProblems, undeclaredKeyProblems } from './fleet.js';
import { GROUPING_FIELDS, POLICY_DEFAULTS, POLICY_FIELDS, VERDICT_FIELDS, type Policy, type PolicyFields } from './model.js';
import { ruleProblems, type RuleFields } from './ruleChecks.js';
import {
  deletePolicyRow,
  escalationPolicyExists,
  eventExists,
  eventNameExists,
  findEventId,
  findPolicy,
  insertPolicies,
  insertPolicy,
  listPolicyRows,
  lockAndCountPolicies,
  updatePolicyRow,
  updatePolicyRows,
  findPoliciesForUpdate,
  type EvaluationReset,
} from './store.js';

/** A create request: the required fields, and any of those with a default. */
export type NewPolicy = Omit<PolicyFields, keyof typeof POLICY_DEFAULTS> & Partial<Pick<PolicyFields, keyof typeof POLICY_DEFAULTS>>;

/** A create request with its defaults filled in (a fleet policy's timezone: UTC). */
export const withDefaults = (input: NewPolicy): PolicyFields => {
  const fields: PolicyFields = { ...POLICY_DEFAULTS, ...input };
  return fields.event !== null && fields.timezone === null ? { ...fields, timezone: 'UTC' } : fields;
};

/** 400 naming each field of a rule, and of what it watches, that does not hold together. */
export function requireValidRule(rule: RuleFields & Parameters<typeof subjectProblems>[0], timezones: TimezoneCatalog): void {
  const problems = [...subjectProblems(rule, timezones), ...ruleProblems(rule)];
  if (problems.length > 0) throw validationFailed(problems);
}

/** 404 when the workspace has no such definition, or no definition of the event name; 400 for a key not declared. */
export async function requireSubject(
  db: Queryable,
  workspaceId: string,
  fields: Pick<PolicyFields, 'event_id' | 'event' | 'filter' | 'group_by'>,
): Promise<void> {
  if (fields.event_id !== null) return requireEvent(db, workspaceId, fields.event_id);
  if (!(await eventNameExists(db, workspaceId, fields.event!))) throw notFound('event');
  const problems = undeclaredKeyProblems(fields, await declaredDimensionKeys(db, workspaceId, fields.event!));
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

/**
 * A policy draft that names its event definition by (agent, event), as a configuration
 * document does (a policy unit test's file), with that definition's event_id instead; 400
 * with `path` when it gives both, or names no definition of the workspace.
 */
export async function withEventId<T extends { event_id?: string | null }>(
  db: Queryable,
  workspaceId: string,
  draft: T & { event_definition?: { agent: string; event: string } },
  path: string,
): Promise<T> {
  const { event_definition: ref, ...rest } = draft;
  if (ref === undefined) return draft;
  if (rest.event_id !== undefined && rest.event_id !== null) {
    throw validationFailed([{ path: `${path}/event_definition`, message: 'names the event definition event_id names too: give one of them' }]);
  }
  const eventId = await findEventId(db, workspaceId, ref.agent, ref.event);
  if (eventId === null) {
    throw validationFailed([
      { path: `${path}/event_definition`, message: `names no event definition (agent "${ref.agent}", event "${ref.event}") of the workspace` },
    ]);
  }
  return { ...rest, event_id: eventId } as unknown as T;
}

/** Creates a policy; past `maxPerWorkspace` policies in the workspace, 409 policy_limit_reached. */
export interface PolicyLimits {
  /** WORKSPACE_MAX_POLICIES: a fleet policy counts once, whatever its groups. */
  readonly maxPerWorkspace: number;
  readonly timezones: TimezoneCatalog;
}

export async function createPolicy(db: PostgresStore, workspaceId: string, input: NewPolicy, limits: PolicyLimits): Promise<Policy> {
  const fields = withDefaults(input);
  const { maxPerWorkspace } = limits;
  requireValidRule(fields, limits.timezones);
  return db.transaction(async (tx) => {
    await requireSubject(tx, workspaceId, fields);
    await requireEscalationPolicy(tx, workspaceId, fields.escalation_policy_id);
    if ((await lockAndCountPolicies(tx, workspaceId)) >= maxPerWorkspace) {
      throw conflict('policy_limit_reached', `The workspace has reached its limit of ${maxPerWorkspace} policies; delete policies it no longer needs.`);
    }
    return insertPolicy(tx, workspaceId, fields);
  });
}

/**
 * Creates many policies with one insert, inside the caller's transaction (an alerting-as-code
 * apply), each checked as createPolicy checks it. A problem's path starts with the index of
 * the input it is in (`/3/threshold`); the workspace's limit counts them all.
 */
export async function createPolicies(
  tx: Queryable,
  workspaceId: string,
  inputs: readonly { readonly key: string | null; readonly input: NewPolicy }[],
  limits: PolicyLimits,
): Promise<string[]> {
  const rows = inputs.map(({ key, input }, i) => {
    const fields = withDefaults(input);
    try {
      requireValidRule(fields, limits.timezones);
    } catch (err) {
      throw indexed(err, i);
    }
    return { id: newId(), key, fields };
  });
  const eventIds = [...new Set(rows.flatMap((r) => (r.fields.event_id === null ? [] : [r.fields.event_id])))];
  const known = new Set(
    (
      await tx.query<{ event_id: string }>('SELECT event_id::text AS event_id FROM event_definitions WHERE user_id = $1 AND event_id = ANY($2::uuid[])', [
        workspaceId,
        eventIds,
      ])
    ).map((r) => r.event_id),
  );
  for (const [i, r] of rows.entries()) {
    try {
      if (r.fields.event_id === null) await requireSubject(tx, workspaceId, r.fields);
      else if (!known.has(r.fields.event_id)) throw notFound('event definition');
      await requireEscalationPolicy(tx, workspaceId, r.fields.escalation_policy_id);
    } catch (err) {
      throw indexed(err, i);
    }
  }
  if ((await lockAndCountPolicies(tx, workspaceId)) + rows.length > limits.maxPerWorkspace) {
    throw conflict('policy_limit_reached', `The workspace would pass its limit of ${limits.maxPerWorkspace} policies; delete policies it no longer needs.`);
  }
  await insertPolicies(tx, workspaceId, rows);
  return rows.map((r) => r.id);
}

/** An input's error, its paths under the input's index. */
function indexed(err: unknown, i: number): unknown {
  if (!(err instanceof AppError)) return err;
  const details = err.details.length > 0 ? err.details.map((d) => ({ ...d, path: `/${i}${d.path}` })) : [{ path: `/${i}`, message: err.message }];
  return new AppError(err.kind, err.code, err.message, details, err.options);
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
export async function updatePolicy(
  db: PostgresStore,
  workspaceId: string,
  policyId: string,
  edit: Partial<PolicyFields>,
  timezones: TimezoneCatalog,
): Promise<Policy> {
  return db.transaction(async (tx) => {
    const current = await findPolicy(tx, workspaceId, policyId, true);
    if (!current) throw notFound('policy');
    const changes = switchedSubject(current, definedOnly(edit));
    const next = { ...current, ...changes };
    requireValidRule(next, timezones);
    const changed = (name: keyof PolicyFields) => changes[name] !== undefined && !sameValue(changes[name], current[name]);
    if (changed('event_id') || changed('event') || changed('filter') || changed('group_by')) await requireSubject(tx, workspaceId, next);
    if (changes.escalation_policy_id !== current.escalation_policy_id) await requireEscalationPolicy(tx, workspaceId, changes.escalation_policy_id);
    const restarts = changed('event_id') || changed('period') || GROUPING_FIELDS.some(changed) || (changes.enabled === true && !current.enabled);
    const rejudges = VERDICT_FIELDS.some(changed);
    return updatePolicyRow(tx, workspaceId, policyId, changes, restarts ? 'restart' : rejudges ? 'new_run' : 'keep');
  });
}

/**
 * Applies many policies' changes (an alerting-as-code apply) inside the caller's transaction,
 * each checked and reset as updatePolicy does it, written with one statement per kind of
 * reset. A problem's path starts with the index of the edit it is in. `locked`: the policies
 * as the caller read them and locked in this transaction (not read again).
 */
export async function updatePolicies(
  tx: Queryable,
  workspaceId: string,
  edits: readonly { readonly id: string; readonly changes: Partial<PolicyFields> }[],
  timezones: TimezoneCatalog,
  locked?: readonly Policy[],
): Promise<void> {
  const stored =
    locked ??
    (await findPoliciesForUpdate(
      tx,
      workspaceId,
      edits.map((e) => e.id),
    ));
  const current = new Map(stored.map((p) => [p.policy_id, p]));
  const rows: { id: string; fields: PolicyFields; reset: EvaluationReset }[] = [];
  for (const [i, { id, changes: edit }] of edits.entries()) {
    try {
      const before = current.get(id);
      if (!before) throw notFound('policy');
      const changes = switchedSubject(before, definedOnly(edit));
      const next = { ...before, ...changes };
      requireValidRule(next, timezones);
      // Each field compared once (10,000 edits of an apply ask of each field several times).
      const differ = new Set((Object.keys(changes) as (keyof PolicyFields)[]).filter((name) => !sameValue(changes[name], before[name])));
      const changed = (name: keyof PolicyFields) => differ.has(name);
      if (changed('event_id') || changed('event') || changed('filter') || changed('group_by')) await requireSubject(tx, workspaceId, next);
      if (changes.escalation_policy_id !== before.escalation_policy_id) await requireEscalationPolicy(tx, workspaceId, changes.escalation_policy_id);
      const restarts = changed('event_id') || changed('period') || GROUPING_FIELDS.some(changed) || (changes.enabled === true && !before.enabled);
      const rejudges = VERDICT_FIELDS.some(changed);
      const fields = Object.fromEntries(POLICY_FIELDS.map((name) => [name, next[name]])) as unknown as PolicyFields;
      rows.push({ id, fields, reset: restarts ? 'restart' : rejudges ? 'new_run' : 'keep' });
    } catch (err) {
      throw indexed(err, i);
    }
  }
  await updatePolicyRows(tx, workspaceId, rows);
}

/**
 * A PUT that names the other kind of subject switches to it: `event` on a policy of one
 * definition clears event_id (a fleet policy's timezone defaults to UTC), `event_id` on a
 * fleet policy clears event and the fleet fields. A field sent as null stays null, so a
 * read-back object (one of the two null) keeps the policy's kind.
 */
function switchedSubject(current: Policy, changes: Partial<PolicyFields>): Partial<PolicyFields> {
  if (typeof changes.event === 'string' && current.event === null && changes.event_id === undefined) {
    return { timezone: 'UTC', ...changes, event_id: null };
  }
  if (typeof changes.event_id === 'string' && current.event_id === null && changes.event === undefined) {
    const { agents, filter, group_by } = POLICY_DEFAULTS;
    return { agents, filter, group_by, timezone: null, ...changes, event: null };
  }
  if (changes.event === null && current.event !== null && changes.timezone === undefined && typeof changes.event_id === 'string')
    return { ...changes, timezone: null };
  return changes;
}

const sameValue = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/** The changes a client made: an absent field (undefined) keeps the current value; null is a value. */
const definedOnly = <T extends object>(changes: T): Partial<T> => Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as Partial<T>;

/** Deletes the policy; its alerts stay (they copy the rule) and can still be resolved or archived. */
export async function deletePolicy(db: Queryable, workspaceId: string, policyId: string): Promise<void> {
  if (!(await deletePolicyRow(db, workspaceId, policyId))) throw notFound('policy');
}
