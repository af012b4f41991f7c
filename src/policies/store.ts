// Policies in Postgres. Every function takes the workspace and filters by it: another
// workspace's policy, or event, is simply not found.
import { newId } from '../ids.js';
import type { PageOrAll } from '../page.js';
import type { Queryable } from '../stores/postgres.js';
import { POLICY_FIELDS, type Policy, type PolicyFields } from './model.js';

const COLUMNS = `policy_id, workspace_id, key, ${POLICY_FIELDS.join(', ')}, created_at, updated_at, evaluated_until`;

/** The SQL type of a field whose parameter needs one (arrays and JSON). */
const CASTS: Partial<Record<keyof PolicyFields, string>> = { agents: '::text[]', group_by: '::text[]', filter: '::jsonb' };
const param = (name: keyof PolicyFields, i: number) => `$${i}${CASTS[name] ?? ''}`;
const value = (name: keyof PolicyFields, v: unknown) => (name === 'filter' ? JSON.stringify(v) : v);

/** Whether the workspace has an event definition of this records' event name (a fleet policy's `event`). */
export async function eventNameExists(db: Queryable, workspaceId: string, event: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM event_definitions WHERE user_id = $1 AND event = $2 LIMIT 1', [workspaceId, event]);
  return rows.length > 0;
}

/** The id of the workspace's event definition of this agent and event name, or null. */
export async function findEventId(db: Queryable, workspaceId: string, agent: string, event: string): Promise<string | null> {
  const rows = await db.query<{ event_id: string }>(
    'SELECT event_id::text AS event_id FROM event_definitions WHERE user_id = $1 AND agent = $2 AND event = $3',
    [workspaceId, agent, event],
  );
  return rows[0]?.event_id ?? null;
}

export async function eventExists(db: Queryable, workspaceId: string, eventId: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM event_definitions WHERE user_id = $1 AND event_id = $2', [workspaceId, eventId]);
  return rows.length > 0;
}

export { escalationPolicyExists } from '../escalation/store.js';

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
     VALUES ($1, $2, ${POLICY_FIELDS.map((name, i) => param(name, i + 3)).join(', ')})
     RETURNING ${COLUMNS}`,
    [newId(), workspaceId, ...POLICY_FIELDS.map((name) => value(name, fields[name]))],
  );
  return rows[0]!;
}

/**
 * Inserts many policies in one statement (an alerting-as-code apply), each with its id and
 * key; the rows travel as one JSON array, typed by the table's own row type.
 */
export async function insertPolicies(
  db: Queryable,
  workspaceId: string,
  rows: readonly { id: string; key: string | null; fields: PolicyFields }[],
): Promise<void> {
  if (rows.length === 0) return;
  const json = JSON.stringify(rows.map((r) => ({ policy_id: r.id, workspace_id: workspaceId, key: r.key, ...r.fields })));
  const columns = ['policy_id', 'workspace_id', 'key', ...POLICY_FIELDS].join(', ');
  await db.query(`INSERT INTO policies (${columns}) SELECT ${columns} FROM jsonb_populate_recordset(NULL::policies, $1::jsonb)`, [json]);
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
  const sets = [...fields.map(([name], i) => `${name} = ${param(name, i + 3)}`), ...RESETS[reset]];
  const rows = await db.query<Policy>(
    `UPDATE policies SET ${[...sets, 'updated_at = now()'].join(', ')}
     WHERE workspace_id = $1 AND policy_id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, policyId, ...fields.map(([name, v]) => value(name, v))],
  );
  // A fleet policy's groups keep the state of the rule they were judged under: a restart forgets them, a new run ends their runs.
  if (reset === 'restart') await db.query('DELETE FROM policy_groups WHERE policy_id = $1', [policyId]);
  if (reset === 'new_run') {
    await db.query('UPDATE policy_groups SET breach_run = 0, breach_started_at = NULL, breach_peak = NULL WHERE policy_id = $1 AND breach_run > 0', [policyId]);
  }
  return rows[0]!;
}

/** The workspace's policies among `ids`, locked until the transaction ends. */
export function findPoliciesForUpdate(db: Queryable, workspaceId: string, ids: readonly string[]): Promise<Policy[]> {
  return db.query<Policy>(`SELECT ${COLUMNS} FROM policies WHERE workspace_id = $1 AND policy_id = ANY($2::uuid[]) ORDER BY policy_id FOR UPDATE`, [
    workspaceId,
    ids,
  ]);
}

/**
 * Writes many policies' fields in one statement per kind of reset (updatePolicyRow for each,
 * in effect): `rows` hold every field's new value.
 */
export async function updatePolicyRows(
  db: Queryable,
  workspaceId: string,
  rows: readonly { id: string; fields: PolicyFields; reset: EvaluationReset }[],
): Promise<void> {
  for (const reset of ['keep', 'new_run', 'restart'] as const) {
    const these = rows.filter((r) => r.reset === reset);
    if (these.length === 0) continue;
    const json = JSON.stringify(these.map((r) => ({ policy_id: r.id, workspace_id: workspaceId, ...r.fields })));
    const sets = [...POLICY_FIELDS.map((name) => `${name} = n.${name}`), ...RESETS[reset], 'updated_at = now()'];
    await db.query(
      `UPDATE policies p SET ${sets.join(', ')} FROM jsonb_populate_recordset(NULL::policies, $2::jsonb) n
       WHERE p.workspace_id = $1 AND p.policy_id = n.policy_id`,
      [workspaceId, json],
    );
    const ids = these.map((r) => r.id);
    if (reset === 'restart') await db.query('DELETE FROM policy_groups WHERE policy_id = ANY($1::uuid[])', [ids]);
    if (reset === 'new_run') {
      await db.query(
        'UPDATE policy_groups SET breach_run = 0, breach_started_at = NULL, breach_peak = NULL WHERE policy_id = ANY($1::uuid[]) AND breach_run > 0',
        [ids],
      );
    }
  }
}

/** False when there was no such policy. */
export async function deletePolicyRow(db: Queryable, workspaceId: string, policyId: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM policies WHERE workspace_id = $1 AND policy_id = $2 RETURNING policy_id', [workspaceId, policyId]);
  return rows.length > 0;
}
