// Objects managed from a file (docs/as-code.md, Drift): which objects the last apply of a
// document to the workspace had, and whether one was changed since in the console or through
// the API (its updated_at later than the apply; the next apply will overwrite it).
import type { Queryable } from '../stores/postgres.js';
import { KEYED_KINDS } from './keys.js';
import type { DocumentKind } from './document.js';

/** Records the apply, inside its transaction: `managed`, each kind's ids of the document's objects. */
export async function recordApply(tx: Queryable, workspaceId: string, managed: Readonly<Record<DocumentKind, readonly string[]>>): Promise<void> {
  await tx.query(
    `INSERT INTO config_applies (workspace_id, applied_at, managed) VALUES ($1, now(), $2::jsonb)
     ON CONFLICT (workspace_id) DO UPDATE SET applied_at = excluded.applied_at, managed = excluded.managed`,
    [workspaceId, JSON.stringify(managed)],
  );
}

export type ManagedStatus =
  | { readonly managed: false }
  | { readonly managed: true; readonly key: string | null; readonly applied_at: Date; readonly updated_at: Date; readonly changed: boolean };

/** Whether the object (of the workspace) was in the last applied document, and changed since. */
export async function managedStatus(db: Queryable, workspaceId: string, kind: DocumentKind, id: string): Promise<ManagedStatus> {
  const { table, id: idColumn } = KEYED_KINDS[kind];
  // Compared in Postgres: its times have microseconds, a Date only milliseconds.
  const rows = await db.query<{ key: string | null; applied_at: Date; updated_at: Date; changed: boolean }>(
    `SELECT o.key, a.applied_at, o.updated_at, o.updated_at > a.applied_at AS changed FROM config_applies a JOIN ${table} o ON o.workspace_id = a.workspace_id AND o.${idColumn} = $3::uuid
     WHERE a.workspace_id = $1 AND a.managed -> $2::text ? $3::text`,
    [workspaceId, kind, id],
  );
  const row = rows[0];
  if (row === undefined) return { managed: false };
  return { managed: true, key: row.key, applied_at: row.applied_at, updated_at: row.updated_at, changed: row.changed };
}
