// Destinations in Postgres. Every function takes the workspace and filters by it.
import type { PageOrAll } from '../page.js';
import type { Queryable } from '../stores/postgres.js';
import type { Destination, DestinationConfig, MessageOptions, Scope } from './model.js';

const COLUMNS = `destination_id, workspace_id, key, channel, url, credentials, scope, policy_ids::text[] AS policy_ids, enabled,
  created_at, updated_at, last_delivered_at, last_error, signing_secret, previous_signing_secret, previous_signing_secret_expires_at,
  group_window_seconds, title_template, message_template, body_template, format`;

export interface StoredFields extends DestinationConfig, MessageOptions {
  readonly scope: Scope;
  readonly policy_ids: readonly string[];
  readonly enabled: boolean;
  readonly signing_secret: string | null;
}

/** The values of $3 to $14 of the insert and the update, in their order. */
function storedValues(fields: StoredFields): unknown[] {
  return [
    fields.channel,
    fields.url,
    fields.credentials,
    fields.scope,
    fields.policy_ids,
    fields.enabled,
    fields.signing_secret,
    fields.group_window_seconds,
    fields.title_template,
    fields.message_template,
    fields.body_template,
    fields.format,
  ];
}

/**
 * Locks the workspace row until the transaction ends, so that concurrent creations count
 * each other against the workspace's limit; returns how many destinations it has.
 */
export async function lockAndCountDestinations(db: Queryable, workspaceId: string): Promise<number> {
  await db.query('SELECT 1 FROM workspaces WHERE user_id = $1 FOR UPDATE', [workspaceId]);
  const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM destinations WHERE workspace_id = $1', [workspaceId]);
  return rows[0]?.n ?? 0;
}

export async function insertDestination(db: Queryable, workspaceId: string, id: string, fields: StoredFields): Promise<Destination> {
  const rows = await db.query<Destination>(
    `INSERT INTO destinations (destination_id, workspace_id, channel, url, credentials, scope, policy_ids, enabled, signing_secret,
       group_window_seconds, title_template, message_template, body_template, format)
     VALUES ($1, $2, $3, $4, $5, $6, $7::uuid[], $8, $9, $10, $11, $12, $13, $14) RETURNING ${COLUMNS}`,
    [id, workspaceId, ...storedValues(fields)],
  );
  return rows[0]!;
}

export async function updateDestinationRow(db: Queryable, workspaceId: string, id: string, fields: StoredFields): Promise<Destination | null> {
  const rows = await db.query<Destination>(
    `UPDATE destinations SET channel = $3, url = $4, credentials = $5, scope = $6, policy_ids = $7::uuid[], enabled = $8, updated_at = now(),
       signing_secret = $9, group_window_seconds = $10, title_template = $11, message_template = $12, body_template = $13, format = $14,
       previous_signing_secret = CASE WHEN $9::text IS NULL THEN NULL ELSE previous_signing_secret END,
       previous_signing_secret_expires_at = CASE WHEN $9::text IS NULL THEN NULL ELSE previous_signing_secret_expires_at END
     WHERE workspace_id = $1 AND destination_id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, id, ...storedValues(fields)],
  );
  return rows[0] ?? null;
}

/** A new signing secret; the current one keeps signing until `overlapMs` from now. Null when the destination has no secret. */
export async function rotateSigningSecretRow(db: Queryable, workspaceId: string, id: string, secret: string, overlapMs: number): Promise<Destination | null> {
  const rows = await db.query<Destination>(
    `UPDATE destinations SET signing_secret = $3, previous_signing_secret = signing_secret,
       previous_signing_secret_expires_at = now() + $4 * interval '1 millisecond', updated_at = now()
     WHERE workspace_id = $1 AND destination_id = $2 AND signing_secret IS NOT NULL RETURNING ${COLUMNS}`,
    [workspaceId, id, secret, overlapMs],
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

/** The ids among `policyIds` that are neither policies nor alert sources of the workspace (a source is routed like a policy). */
export async function unknownPolicyIds(db: Queryable, workspaceId: string, policyIds: readonly string[]): Promise<string[]> {
  if (policyIds.length === 0) return [];
  const rows = await db.query<{ policy_id: string }>(
    `SELECT policy_id::text AS policy_id FROM policies WHERE workspace_id = $1 AND policy_id = ANY($2::uuid[])
     UNION ALL
     SELECT alert_source_id::text FROM alert_sources WHERE workspace_id = $1 AND alert_source_id = ANY($2::uuid[])`,
    [workspaceId, policyIds],
  );
  const known = new Set(rows.map((r) => r.policy_id));
  return policyIds.filter((id) => !known.has(id));
}

/** A destination's latest delivery outcome: delivered at all (last_delivered_at now), and its last error (null after a success). */
export interface DeliveryOutcome {
  readonly destinationId: string;
  readonly delivered: boolean;
  readonly error: string | null;
}

export async function recordDeliveryOutcomes(db: Queryable, outcomes: readonly DeliveryOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await db.query(
    `UPDATE destinations d SET last_delivered_at = CASE WHEN u.delivered THEN now() ELSE d.last_delivered_at END, last_error = u.error
     FROM unnest($1::uuid[], $2::boolean[], $3::text[]) AS u(destination_id, delivered, error)
     WHERE d.destination_id = u.destination_id`,
    [outcomes.map((o) => o.destinationId), outcomes.map((o) => o.delivered), outcomes.map((o) => o.error)],
  );
}

export async function ownerEmailOf(db: Queryable, workspaceId: string): Promise<string | null> {
  const rows = await db.query<{ email: string | null }>('SELECT email FROM workspaces WHERE user_id = $1', [workspaceId]);
  return rows[0]?.email ?? null;
}
