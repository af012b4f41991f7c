// Policies in Postgres. Every function takes the workspace and filters by it: another
// workspace's policy, or event, is simply not found.
import { notFound, validationFailed } from '../errors.js';
import type { Page } from '../page.js';
import { newId } from '../ids.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import { POLICY_FIELDS, type Policy, type PolicyFields } from './model.js';

export type NewPolicy = Omit<PolicyFields, 'description' | 'channel' | 'enabled'> & Partial<Pick<PolicyFields, 'description' | 'channel' | 'enabled'>>;

const COLUMNS = `policy_id, workspace_id, event_id, title, description, channel, period, aggregate, condition, threshold,
  severity, enabled, created_at, updated_at, evaluated_until`;

/** JSON cannot carry NaN or Infinity, but 1e999 parses to Infinity. */
function requireFiniteThreshold(threshold: number | undefined): void {
  if (threshold !== undefined && !Number.isFinite(threshold)) {
    throw validationFailed([{ path: '/threshold', message: 'must be a finite number' }]);
  }
}

async function requireEvent(db: Queryable, workspaceId: string, eventId: string): Promise<void> {
  const rows = await db.query('SELECT 1 FROM event_definitions WHERE user_id = $1 AND event_id = $2', [workspaceId, eventId]);
  if (rows.length === 0) throw notFound('event definition');
}

export async function createPolicy(db: PostgresStore, workspaceId: string, input: NewPolicy): Promise<Policy> {
  requireFiniteThreshold(input.threshold);
  return db.transaction(async (tx) => {
    await requireEvent(tx, workspaceId, input.event_id);
    const rows = await tx.query<Policy>(
      `INSERT INTO policies (policy_id, workspace_id, event_id, title, description, channel, period, aggregate, condition,
                             threshold, severity, enabled)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       RETURNING ${COLUMNS}`,
      [
        newId(),
        workspaceId,
        input.event_id,
        input.title,
        input.description ?? '',
        input.channel ?? 'default',
        input.period,
        input.aggregate,
        input.condition,
        input.threshold,
        input.severity,
        input.enabled ?? true,
      ],
    );
    return rows[0]!;
  });
}

export async function getPolicy(db: Queryable, workspaceId: string, policyId: string): Promise<Policy> {
  const rows = await db.query<Policy>(`SELECT ${COLUMNS} FROM policies WHERE workspace_id = $1 AND policy_id = $2`, [workspaceId, policyId]);
  if (!rows[0]) throw notFound('policy');
  return rows[0];
}

export async function listPolicies(db: Queryable, workspaceId: string, page: Page): Promise<Policy[]> {
  return db.query<Policy>(
    `SELECT ${COLUMNS} FROM policies WHERE workspace_id = $1
     ORDER BY created_at DESC, policy_id DESC LIMIT $2 OFFSET $3`,
    [workspaceId, page.limit, page.offset],
  );
}

/**
 * Applies the given changes. A policy that now watches another event or period, or that
 * is enabled again, restarts its evaluation from the last closed bucket (evaluated_until
 * back to NULL): buckets of the old rule, or of the time it was off, are not evaluated.
 */
export async function updatePolicy(db: PostgresStore, workspaceId: string, policyId: string, changes: Partial<PolicyFields>): Promise<Policy> {
  requireFiniteThreshold(changes.threshold);
  return db.transaction(async (tx) => {
    const [current] = await tx.query<Policy>(`SELECT ${COLUMNS} FROM policies WHERE workspace_id = $1 AND policy_id = $2 FOR UPDATE`, [workspaceId, policyId]);
    if (!current) throw notFound('policy');
    if (changes.event_id !== undefined && changes.event_id !== current.event_id) await requireEvent(tx, workspaceId, changes.event_id);
    const restarts =
      (changes.event_id !== undefined && changes.event_id !== current.event_id) ||
      (changes.period !== undefined && changes.period !== current.period) ||
      (changes.enabled === true && !current.enabled);
    const fields = POLICY_FIELDS.filter((name) => changes[name] !== undefined).map((name) => [name, changes[name]] as const);
    const sets = fields.map(([name], i) => `${name} = $${i + 3}`);
    if (restarts) sets.push('evaluated_until = NULL');
    const rows = await tx.query<Policy>(
      `UPDATE policies SET ${[...sets, 'updated_at = now()'].join(', ')}
       WHERE workspace_id = $1 AND policy_id = $2 RETURNING ${COLUMNS}`,
      [workspaceId, policyId, ...fields.map(([, v]) => v)],
    );
    return rows[0]!;
  });
}

/** Deletes the policy; its alerts stay (they copy the rule) and can still be resolved or archived. */
export async function deletePolicy(db: Queryable, workspaceId: string, policyId: string): Promise<void> {
  const rows = await db.query('DELETE FROM policies WHERE workspace_id = $1 AND policy_id = $2 RETURNING policy_id', [workspaceId, policyId]);
  if (rows.length === 0) throw notFound('policy');
}
