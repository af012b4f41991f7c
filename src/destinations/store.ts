// Destinations in Postgres. Every function takes the workspace and filters by it.
import type { PageOrAll } from '../page.js';
import type { Queryable } from '../stores/postgres.js';
import type { Destination, DestinationConfig, Scope } from './types.js';

const COLUMNS = `destination_id, workspace_id, channel, url, credentials, scope, policy_ids::text[] AS policy_ids, enabled,
  created_at, updated_at, last_delivered_at, last_error`;

export interface StoredFields extends DestinationConfig {
  readonly scope: Scope;
  readonly policy_ids: readonly string[];
  readonly enabled: boolean;
}

export async function insertDestination(db: Queryable, workspaceId: string, id: string, fields: StoredFields): Promise<Destination> {
  const rows = await db.query<Destination>(
    `INSERT INTO destinations (destination_id, workspace_id, channel, url, credentials, scope, policy_ids, enabled)
     VALUES ($1, $2, $3, $4, $5, $6, $7::uuid[], $8) RETURNING ${COLUMNS}`,
    [id, workspaceId, fields.channel, fields.url, fields.credentials, fields.scope, fields.policy_ids, fields.enabled],
  );
  return rows[0]!;
}

export async function updateDestinationRow(db: Queryable, workspaceId: string, id: string, fields: StoredFields): Promise<Destination | null> {
  const rows = await db.query<Destination>(
    `UPDATE destinations SET channel = $3, url = $4, credentials = $5, scope = $6, policy_ids = $7::uuid[], enabled = $8, updated_at = now()
     WHERE workspace_id = $1 AND destination_id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, id, fields.channel, fields.url, fields.credentials, fields.scope, fields.policy_ids, fields.enabled],
  );
  return rows[0] ?? null;
}

export async function findDestination(db: Queryable, workspaceId: string, id: string): Promise<Destination | null> {
  const rows = await db.query<Destination>(`SELECT ${COLUMNS} FROM destinations WHERE workspace_id = $1 AND destination_id = $2`, [workspaceId, id]);
  return rows[0] ?? null;
}

export async function listDestinationRows(db: Queryable, workspaceId: string, page: PageOrAll): Promise<Destination[]> {
  return db.query<Destination>(
    `SELECT ${COLUMNS} FROM destinations WHERE workspace_id = $1
     ORDER BY created_at DESC, destination_id DESC LIMIT $2 OFFSET $3`,
    [workspaceId, page.limit, page.offset],
  );
}

/** The ids among `policyIds` that are not policies of the workspace. */
export async function unknownPolicyIds(db: Queryable, workspaceId: string, policyIds: readonly string[]): Promise<string[]> {
  if (policyIds.length === 0) return [];
  const rows = await db.query<{ policy_id: string }>(
    `SELECT policy_id::text AS policy_id FROM policies WHERE workspace_id = $1 AND policy_id = ANY($2::uuid[])`,
    [workspaceId, policyIds],
  );
  const known = new Set(rows.map((r) => r.policy_id));
  return policyIds.filter((id) => !known.has(id));
}

export async function ownerEmailOf(db: Queryable, workspaceId: string): Promise<string | null> {
  const rows = await db.query<{ email: string | null }>('SELECT email FROM workspaces WHERE user_id = $1', [workspaceId]);
  return rows[0]?.email ?? null;
}
