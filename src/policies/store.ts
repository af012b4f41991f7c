// Policies in Postgres. Every function takes the workspace and filters by it: another
// workspace's policy, or event, is simply not found.
import { newId } from '../ids.js';
import type { PageOrAll } from '../page.js';
import type { Queryable } from '../stores/postgres.js';
import { POLICY_FIELDS, type Policy, type PolicyFields } from './model.js';

const COLUMNS = `policy_id, workspace_id, ${POLICY_FIELDS.join(', ')}, created_at, updated_at, evaluated_until`;

export async function eventExists(db: Queryable, workspaceId: string, eventId: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM event_definitions WHERE user_id = $1 AND event_id = $2', [workspaceId, eventId]);
  return rows.length > 0;
}

/** Whether the escalation policy is the workspace's (locked against a concurrent delete until the transaction ends). */
export async function escalationPolicyExists(db: Queryable, workspaceId: string, escalationPolicyId: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM escalation_policies WHERE workspace_id = $1 AND escalation_policy_id = $2 FOR SHARE', [
    workspaceId,
    escalationPolicyId,
  ]);
  return rows.length > 0;
}

/**
 * Locks the workspace row until the transaction ends, so that concurrent creations count
 * each other against the workspace's limit; returns how many policies it has.
 */
export async function lockAndCountPolicies(db: Queryable, workspaceId: string): Promise<number> {
  await db.query('SELECT 1 FROM workspaces WHERE user_id = $1 FOR UPDATE', [workspaceId]);
  const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM policies WHERE workspace_id = $1', [workspaceId]);
  return rows[0]?.n ?? 0;
}

export async function insertPolicy(db: Queryable, workspaceId: string, fields: PolicyFields): Promise<Policy> {
  const rows = await db.query<Policy>(
    `INSERT INTO policies (policy_id, workspace_id, ${POLICY_FIELDS.join(', ')})
     VALUES ($1, $2, ${POLICY_FIELDS.map((_, i) => `$${i + 3}`).join(', ')})
     RETURNING ${COLUMNS}`,
    [newId(), workspaceId, ...POLICY_FIELDS.map((name) => fields[name])],
  );
  return rows[0]!;
}

/** The policy, or null; `forUpdate` locks it until the transaction ends. */
export async function findPolicy(db: Queryable, workspaceId: string, policyId: string, forUpdate = false): Promise<Policy | null> {
  const rows = await db.query<Policy>(`SELECT ${COLUMNS} FROM policies WHERE workspace_id = $1 AND policy_id = $2${forUpdate ? ' FOR UPDATE' : ''}`, [
    workspaceId,
    policyId,
  ]);
  return rows[0] ?? null;
}

export function listPolicyRows(db: Queryable, workspaceId: string, page: PageOrAll): Promise<Policy[]> {
  return db.query<Policy>(
    `SELECT ${COLUMNS} FROM policies WHERE workspace_id = $1
     ORDER BY created_at DESC, policy_id DESC LIMIT $2 OFFSET $3`,
    [workspaceId, page.limit, page.offset],
  );
}

/**
 * What an update does to the evaluation state kept with the policy: keep it, start a new
 * pending run (the verdict rule changed), or restart evaluation from the last closed bucket.
 */
export type EvaluationReset = 'keep' | 'new_run' | 'restart';

const RESETS: Record<EvaluationReset, string[]> = {
  keep: [],
  new_run: ['breach_run = 0', 'breach_started_at = NULL', 'breach_peak = NULL'],
  restart: ['evaluated_until = NULL', 'breach_run = 0', 'breach_started_at = NULL', 'breach_peak = NULL', 'silent_since = NULL'],
};

/** Writes the given fields (undefined = unchanged), and resets the evaluation state as told. */
export async function updatePolicyRow(
  db: Queryable,
  workspaceId: string,
  policyId: string,
  changes: Partial<PolicyFields>,
  reset: EvaluationReset,
): Promise<Policy> {
  const fields = POLICY_FIELDS.filter((name) => changes[name] !== undefined).map((name) => [name, changes[name]] as const);
  const sets = [...fields.map(([name], i) => `${name} = $${i + 3}`), ...RESETS[reset]];
  const rows = await db.query<Policy>(
    `UPDATE policies SET ${[...sets, 'updated_at = now()'].join(', ')}
     WHERE workspace_id = $1 AND policy_id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, policyId, ...fields.map(([, v]) => v)],
  );
  return rows[0]!;
}

/** False when there was no such policy. */
export async function deletePolicyRow(db: Queryable, workspaceId: string, policyId: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM policies WHERE workspace_id = $1 AND policy_id = $2 RETURNING policy_id', [workspaceId, policyId]);
  return rows.length > 0;
}
