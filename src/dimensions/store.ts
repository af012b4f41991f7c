// Dimensions in Postgres. Every function takes the workspace and filters by it: another
// workspace's declaration is simply not found.
import type { Queryable } from '../stores/postgres.js';
import type { Dimension } from './model.js';

const COLUMNS =
  'workspace_id, event, keys, version::int AS version, overflowed_at, backfill_status, backfill_from, backfill_to, on_first_sight, created_at, updated_at';

export async function findDimension(db: Queryable, workspaceId: string, event: string): Promise<Dimension | null> {
  const rows = await db.query<Dimension>(`SELECT ${COLUMNS} FROM dimensions WHERE workspace_id = $1 AND event = $2`, [workspaceId, event]);
  return rows[0] ?? null;
}

/** Newest first; without a limit, every declaration of the workspace from the offset on. */
export function listDimensionRows(db: Queryable, workspaceId: string, page: { limit: number | null; offset: number }): Promise<Dimension[]> {
  return db.query<Dimension>(`SELECT ${COLUMNS} FROM dimensions WHERE workspace_id = $1 ORDER BY created_at DESC, event DESC LIMIT $2 OFFSET $3`, [
    workspaceId,
    page.limit,
    page.offset,
  ]);
}

export async function countDimensions(db: Queryable, workspaceId: string): Promise<number> {
  const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM dimensions WHERE workspace_id = $1', [workspaceId]);
  return rows[0]?.n ?? 0;
}

/**
 * Declares the keys: a new row, or the row's keys replaced, under a new version. `backfill` says whether a backfill is to run (status running, its range set).
 */
export async function upsertDimension(
  db: Queryable,
  workspaceId: string,
  event: string,
  keys: readonly string[],
  backfill: { from: Date; to: Date } | null,
): Promise<Dimension> {
  const rows = await db.query<Dimension>(
    `INSERT INTO dimensions (workspace_id, event, keys, backfill_status, backfill_from, backfill_to)
     VALUES ($1, $2, $3::text[], $4, $5, $6)
     ON CONFLICT (workspace_id, event) DO UPDATE SET keys = EXCLUDED.keys, version = nextval('dimensions_version_seq'),
       backfill_status = EXCLUDED.backfill_status, backfill_from = EXCLUDED.backfill_from, backfill_to = EXCLUDED.backfill_to,
       overflowed_at = NULL, on_first_sight = false, updated_at = now()
     RETURNING ${COLUMNS}`,
    [workspaceId, event, keys, backfill ? 'running' : 'done', backfill?.from ?? null, backfill?.to ?? null],
  );
  return rows[0]!;
}

/** Declares keys only where none are: OTLP and remote-write on a metric's first points. True when it did. */
export async function insertDimensionIfAbsent(db: Queryable, workspaceId: string, event: string, keys: readonly string[]): Promise<boolean> {
  const rows = await db.query<{ event: string }>(
    `INSERT INTO dimensions (workspace_id, event, keys) VALUES ($1, $2, $3::text[]) ON CONFLICT (workspace_id, event) DO NOTHING RETURNING event`,
    [workspaceId, event, keys],
  );
  return rows.length > 0;
}

export async function deleteDimensionRow(db: Queryable, workspaceId: string, event: string): Promise<boolean> {
  const rows = await db.query<{ event: string }>('DELETE FROM dimensions WHERE workspace_id = $1 AND event = $2 RETURNING event', [workspaceId, event]);
  return rows.length > 0;
}

/** Marks a backfill of `version` done (a later PUT's backfill is left as it is). */
export async function finishBackfill(db: Queryable, workspaceId: string, event: string, version: number): Promise<void> {
  await db.query("UPDATE dimensions SET backfill_status = 'done' WHERE workspace_id = $1 AND event = $2 AND version = $3", [workspaceId, event, version]);
}

/** The backfills still to run (after a restart, those a stopped process left running). */
export function runningBackfills(db: Queryable): Promise<Dimension[]> {
  return db.query<Dimension>(`SELECT ${COLUMNS} FROM dimensions WHERE backfill_status = 'running' ORDER BY updated_at`);
}

/** Notes that the event names' records overflowed just now. */
export async function markOverflowed(db: Queryable, workspaceId: string, events: readonly string[]): Promise<void> {
  if (events.length === 0) return;
  await db.query('UPDATE dimensions SET overflowed_at = now() WHERE workspace_id = $1 AND event = ANY ($2::text[])', [workspaceId, events]);
}

/** Every declaration of the workspaces given, for the writers' cache: (workspace, event) → keys and version. */
export function dimensionsOf(db: Queryable, workspaceIds: readonly string[]): Promise<Pick<Dimension, 'workspace_id' | 'event' | 'keys' | 'version'>[]> {
  return db.query('SELECT workspace_id, event, keys, version::int AS version FROM dimensions WHERE workspace_id = ANY ($1::text[])', [workspaceIds]);
}
