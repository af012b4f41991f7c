// Silences in Postgres. Every function takes the workspace and filters by it: another
// workspace's silence is simply not found.
import { newId } from '../ids.js';
import type { Queryable } from '../stores/postgres.js';
import type { Silence, SilenceFields, SilencePage } from './model.js';

const COLUMNS = 'silence_id, workspace_id, key, policy_ids, matchers, created_by, starts_at, ends_at, comment, recurrence, created_at, updated_at';

/**
 * Locks the workspace row until the transaction ends, so that concurrent creations count
 * each other against the workspace's limit; returns how many silences it has.
 */
export async function lockAndCountSilences(db: Queryable, workspaceId: string): Promise<number> {
  await db.query('SELECT 1 FROM workspaces WHERE user_id = $1 FOR UPDATE', [workspaceId]);
  const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM silences WHERE workspace_id = $1', [workspaceId]);
  return rows[0]?.n ?? 0;
}

/** The ids among `policyIds` that are neither policies nor alert sources of the workspace. */
export async function unknownPolicyIds(db: Queryable, workspaceId: string, policyIds: readonly string[]): Promise<string[]> {
  if (policyIds.length === 0) return [];
  const rows = await db.query<{ policy_id: string }>(
    `SELECT policy_id FROM policies WHERE workspace_id = $1 AND policy_id = ANY ($2::uuid[])
     UNION ALL SELECT alert_source_id FROM alert_sources WHERE workspace_id = $1 AND alert_source_id = ANY ($2::uuid[])`,
    [workspaceId, policyIds],
  );
  const known = new Set(rows.map((r) => r.policy_id));
  return policyIds.filter((id) => !known.has(id));
}

/** The values of the fields a client sets, in the order of the columns insert and update name. */
const fieldValues = (fields: SilenceFields) => [
  fields.policy_ids,
  fields.matchers === null ? null : JSON.stringify(fields.matchers),
  fields.created_by,
  fields.starts_at,
  fields.ends_at,
  fields.comment,
  fields.recurrence === null ? null : JSON.stringify(fields.recurrence),
];

export async function insertSilence(db: Queryable, workspaceId: string, fields: SilenceFields): Promise<Silence> {
  const rows = await db.query<Silence>(
    `INSERT INTO silences (silence_id, workspace_id, policy_ids, matchers, created_by, starts_at, ends_at, comment, recurrence)
     VALUES ($1, $2, $3::uuid[], $4::jsonb, $5, $6, $7, $8, $9::jsonb) RETURNING ${COLUMNS}`,
    [newId(), workspaceId, ...fieldValues(fields)],
  );
  return rows[0]!;
}

/** The silence, or null; `forUpdate` locks it until the transaction ends. */
export async function findSilence(db: Queryable, workspaceId: string, silenceId: string, forUpdate = false): Promise<Silence | null> {
  const rows = await db.query<Silence>(`SELECT ${COLUMNS} FROM silences WHERE workspace_id = $1 AND silence_id = $2${forUpdate ? ' FOR UPDATE' : ''}`, [
    workspaceId,
    silenceId,
  ]);
  return rows[0] ?? null;
}

/** Newest first; without a limit, every silence of the workspace from the offset on. */
export function listSilenceRows(db: Queryable, workspaceId: string, page: SilencePage): Promise<Silence[]> {
  return db.query<Silence>(
    `SELECT ${COLUMNS} FROM silences WHERE workspace_id = $1
     ORDER BY created_at DESC, silence_id DESC LIMIT $2 OFFSET $3`,
    [workspaceId, page.limit, page.offset],
  );
}

/** Replaces every field a client sets. */
export async function updateSilenceRow(db: Queryable, workspaceId: string, silenceId: string, fields: SilenceFields): Promise<Silence> {
  const rows = await db.query<Silence>(
    `UPDATE silences SET policy_ids = $3::uuid[], matchers = $4::jsonb, created_by = $5, starts_at = $6, ends_at = $7, comment = $8,
       recurrence = $9::jsonb, updated_at = now()
     WHERE workspace_id = $1 AND silence_id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, silenceId, ...fieldValues(fields)],
  );
  return rows[0]!;
}

/**
 * Ends the silence at `now`, as Alertmanager expires one: an active silence ends now, a
 * pending one starts (a millisecond before: a silence ends after it starts) and ends now, an
 * ended one is left as it is. Null when there is no such silence.
 */
export async function expireSilenceRow(db: Queryable, workspaceId: string, silenceId: string, now: Date): Promise<Silence | null> {
  const rows = await db.query<Silence>(
    `UPDATE silences SET starts_at = LEAST(starts_at, $3::timestamptz - interval '1 millisecond'), ends_at = LEAST(ends_at, $3),
       updated_at = CASE WHEN ends_at > $3 THEN $3 ELSE updated_at END
     WHERE workspace_id = $1 AND silence_id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, silenceId, now],
  );
  return rows[0] ?? null;
}

/** False when there was no such silence. */
export async function deleteSilenceRow(db: Queryable, workspaceId: string, silenceId: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM silences WHERE workspace_id = $1 AND silence_id = $2 RETURNING silence_id', [workspaceId, silenceId]);
  return rows.length > 0;
}

/** The silences of these workspaces that are in force at some instant of [from, to] (recurring windows not yet checked). */
export function silencesOverlapping(db: Queryable, workspaceIds: readonly string[], from: Date, to: Date): Promise<Silence[]> {
  if (workspaceIds.length === 0) return Promise.resolve([]);
  return db.query<Silence>(`SELECT ${COLUMNS} FROM silences WHERE workspace_id = ANY ($1::text[]) AND starts_at <= $3 AND ends_at > $2`, [
    workspaceIds,
    from,
    to,
  ]);
}
