// Alert sources in Postgres. Every function takes the workspace and filters by it: another
// workspace's alert source is simply not found.
import { newId } from '../ids.js';
import type { PageOrAll } from '../page.js';
import type { Queryable } from '../stores/postgres.js';
import type { AlertSource, AlertSourceFields } from './model.js';

const COLUMNS = `alert_source_id, workspace_id, key, name, severity_label, default_severity, escalation_policy_id, renotify_minutes,
  resolve_timeout_minutes, inhibit_rules, created_at, updated_at`;

const values = (f: AlertSourceFields) => [
  f.name,
  f.severity_label,
  f.default_severity,
  f.escalation_policy_id,
  f.renotify_minutes,
  f.resolve_timeout_minutes,
  JSON.stringify(f.inhibit_rules),
];

/** Locks the workspace row so that concurrent creations count each other; returns how many alert sources it has. */
export async function lockAndCountAlertSources(db: Queryable, workspaceId: string): Promise<number> {
  await db.query('SELECT 1 FROM workspaces WHERE user_id = $1 FOR UPDATE', [workspaceId]);
  const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_sources WHERE workspace_id = $1', [workspaceId]);
  return rows[0]?.n ?? 0;
}

export async function insertAlertSource(db: Queryable, workspaceId: string, fields: AlertSourceFields): Promise<AlertSource> {
  const rows = await db.query<AlertSource>(
    `INSERT INTO alert_sources (alert_source_id, workspace_id, name, severity_label, default_severity, escalation_policy_id,
       renotify_minutes, resolve_timeout_minutes, inhibit_rules)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb) RETURNING ${COLUMNS}`,
    [newId(), workspaceId, ...values(fields)],
  );
  return rows[0]!;
}

export async function findAlertSource(db: Queryable, workspaceId: string, id: string, forUpdate = false): Promise<AlertSource | null> {
  const rows = await db.query<AlertSource>(
    `SELECT ${COLUMNS} FROM alert_sources WHERE workspace_id = $1 AND alert_source_id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [workspaceId, id],
  );
  return rows[0] ?? null;
}

export function listAlertSourceRows(db: Queryable, workspaceId: string, page: PageOrAll): Promise<AlertSource[]> {
  return db.query<AlertSource>(
    `SELECT ${COLUMNS} FROM alert_sources WHERE workspace_id = $1
     ORDER BY created_at DESC, alert_source_id DESC LIMIT $2 OFFSET $3`,
    [workspaceId, page.limit, page.offset],
  );
}

export async function updateAlertSourceRow(db: Queryable, workspaceId: string, id: string, fields: AlertSourceFields): Promise<AlertSource> {
  const rows = await db.query<AlertSource>(
    `UPDATE alert_sources SET name = $3, severity_label = $4, default_severity = $5, escalation_policy_id = $6, renotify_minutes = $7,
       resolve_timeout_minutes = $8, inhibit_rules = $9::jsonb, updated_at = now()
     WHERE workspace_id = $1 AND alert_source_id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, id, ...values(fields)],
  );
  return rows[0]!;
}

export async function deleteAlertSourceRow(db: Queryable, workspaceId: string, id: string): Promise<void> {
  await db.query('DELETE FROM alert_sources WHERE workspace_id = $1 AND alert_source_id = $2', [workspaceId, id]);
}
