// The SQL of idempotency keys (schema/postgres/0012_idempotency_keys.sql).
import type { Queryable } from '../stores/postgres.js';

interface KeyRow {
  request_hash: string;
  response_status: number | null;
  response_body: string | null;
}

/**
 * Claims the key for a request: inserts it, or takes over a row that expired (older than
 * `ttlMs`) or was abandoned unanswered (older than `abandonedMs`). True when claimed.
 */
export async function insertOrTakeOverKey(
  db: Queryable,
  workspaceId: string,
  key: string,
  requestHash: string,
  ttlMs: number,
  abandonedMs: number,
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO idempotency_keys (workspace_id, idempotency_key, request_hash) VALUES ($1, $2, $3)
     ON CONFLICT (workspace_id, idempotency_key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, response_status = NULL, response_body = NULL, created_at = now()
       WHERE idempotency_keys.created_at < now() - make_interval(secs => $4::double precision / 1000)
          OR (idempotency_keys.response_status IS NULL AND idempotency_keys.created_at < now() - make_interval(secs => $5::double precision / 1000))
     RETURNING 1 AS claimed`,
    [workspaceId, key, requestHash, ttlMs, abandonedMs],
  );
  return rows.length === 1;
}

export async function findKey(db: Queryable, workspaceId: string, key: string): Promise<KeyRow | null> {
  const [row] = await db.query<KeyRow>(
    'SELECT request_hash, response_status, response_body FROM idempotency_keys WHERE workspace_id = $1 AND idempotency_key = $2',
    [workspaceId, key],
  );
  return row ?? null;
}

export async function recordAnswer(db: Queryable, workspaceId: string, key: string, requestHash: string, status: number, body: string): Promise<void> {
  await db.query(
    `UPDATE idempotency_keys SET response_status = $4, response_body = $5
     WHERE workspace_id = $1 AND idempotency_key = $2 AND request_hash = $3 AND response_status IS NULL`,
    [workspaceId, key, requestHash, status, body],
  );
}

/** Frees a claim whose request did not succeed, so the client may retry with the same key. */
export async function deleteUnansweredKey(db: Queryable, workspaceId: string, key: string, requestHash: string): Promise<void> {
  await db.query('DELETE FROM idempotency_keys WHERE workspace_id = $1 AND idempotency_key = $2 AND request_hash = $3 AND response_status IS NULL', [
    workspaceId,
    key,
    requestHash,
  ]);
}

/** Deletes keys older than `ttlMs`; returns how many. */
export async function deleteExpiredKeys(db: Queryable, ttlMs: number): Promise<number> {
  const rows = await db.query(`DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(secs => $1::double precision / 1000) RETURNING 1`, [
    ttlMs,
  ]);
  return rows.length;
}
