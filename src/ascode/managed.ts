// Objects managed from a file (docs/as-code.md, Drift): which objects the last apply of a
// document to the workspace had, and whether one was changed since in the console or through
// the API (its updated_at later than the apply; the next apply will overwrite it). Objects of
// the kinds with keys are named by id; dimension declarations by their event name.
import type { Queryable } from '../stores/postgres.js';
import { KEYED_KINDS } from './keys.js';
import type { DocumentKind } from './document.js';

/** What a document manages: the objects of the kinds with keys, and dimension declarations. */
export type ManagedKind = DocumentKind | 'dimensions';

/** Records the apply, inside its transaction: `managed`, each kind's ids (dimensions: event names) of the document's objects. */
export async function recordApply(tx: Queryable, workspaceId: string, managed: Readonly<Record<ManagedKind, readonly string[]>>): Promise<void> {
  await tx.query(
    `INSERT INTO config_applies (workspace_id, applied_at, managed) VALUES ($1, now(), $2::jsonb)
     ON CONFLICT (workspace_id) DO UPDATE SET applied_at = excluded.applied_at, managed = excluded.managed`,
    [workspaceId, JSON.stringify(managed)],
  );
}

export type ManagedStatus =
  | { readonly managed: false }
  | { readonly managed: true; readonly key: string | null; readonly applied_at: Date; readonly updated_at: Date; readonly changed: boolean };

/**
 * Whether the object (of the workspace) was in the last applied document, and changed since.
 * `id`: the object's id, a UUID; for dimensions, the event name.
 */
export async function managedStatus(db: Queryable, workspaceId: string, kind: ManagedKind, id: string): Promise<ManagedStatus> {
  // A dimension declaration has no key: its event name names it in the document.
  const object =
    kind === 'dimensions'
      ? { key: 'NULL::text', join: 'dimensions o ON o.workspace_id = a.workspace_id AND o.event = $3' }
      : { key: 'o.key', join: `${KEYED_KINDS[kind].table} o ON o.workspace_id = a.workspace_id AND o.${KEYED_KINDS[kind].id} = $3::uuid` };
  // Compared in Postgres: its times have microseconds, a Date only milliseconds.
  const rows = await db.query<{ key: string | null; applied_at: Date; updated_at: Date; changed: boolean }>(
    `SELECT ${object.key} AS key, a.applied_at, o.updated_at, o.updated_at > a.applied_at AS changed FROM config_applies a JOIN ${object.join}
     WHERE a.workspace_id = $1 AND a.managed -> $2::text ? $3::text`,
    [workspaceId, kind, id],
  );
  const row = rows[0];
  if (row === undefined) return { managed: false };
  return { managed: true, key: row.key, applied_at: row.applied_at, updated_at: row.updated_at, changed: row.changed };
}
