// Sends cut off by a process that stopped (docs/api.md, Destinations and deliveries). A
// claimed attempt carries claimed_at; when its lease runs out while it is still pending,
// the worker that took it stopped during the send (or before it reached the wire: from
// outside the two cannot be told apart, and the receiver may have got it). Recovery closes
// that row as interrupted and writes the re-send as a row of its own (attempt + 1, the same
// notification, so the same Idempotency-Key and webhook-id), due at once.
import { newId } from '../ids.js';
import type { Queryable } from '../stores/postgres.js';

export const INTERRUPTED_MESSAGE =
  'interrupted: the process stopped during this send; whether the receiver got it is unknown, so it is sent again under the same Idempotency-Key';

/**
 * Closes these attempts as interrupted, if they still are (pending, claimed, lease run out),
 * and inserts their re-sends, in one statement; returns how many it closed. Rows another
 * worker holds are skipped: it is recovering them.
 */
export async function resendInterrupted(db: Queryable, attemptIds: readonly string[]): Promise<number> {
  if (attemptIds.length === 0) return 0;
  const rows = await db.query<{ attempt_id: string }>(
    `WITH cut AS (
       SELECT attempt_id FROM delivery_attempts
       WHERE attempt_id = ANY ($1::uuid[]) AND status = 'pending' AND claimed_at IS NOT NULL AND next_attempt_at <= now()
       FOR UPDATE SKIP LOCKED
     ), closed AS (
       UPDATE delivery_attempts a SET status = 'interrupted', error_message = $3, next_attempt_at = NULL, updated_at = now()
       FROM cut WHERE a.attempt_id = cut.attempt_id
       RETURNING a.attempt_id, a.workspace_id, a.alert_id, a.destination_id, a.notification_id, a.kind, a.type, a.channel, a.target,
         a.attempt, a.group_id
     ), resent AS (
       INSERT INTO delivery_attempts (attempt_id, workspace_id, alert_id, destination_id, notification_id, kind, type, channel, target, attempt,
         status, next_attempt_at, group_id)
       SELECT ids.new_id, c.workspace_id, c.alert_id, c.destination_id, c.notification_id, c.kind, c.type, c.channel, c.target, c.attempt + 1,
         'pending', now(), c.group_id
       FROM closed c JOIN unnest($1::uuid[], $2::uuid[]) AS ids(old_id, new_id) ON ids.old_id = c.attempt_id
     )
     SELECT attempt_id FROM closed`,
    [attemptIds, attemptIds.map(() => newId()), INTERRUPTED_MESSAGE],
  );
  return rows.length;
}

/**
 * Hands back claimed attempts this worker never put on the wire (a clean stop): due at once
 * again for any worker, and not taken for interrupted sends.
 */
export async function releaseClaims(db: Queryable, attemptIds: readonly string[]): Promise<void> {
  if (attemptIds.length === 0) return;
  await db.query(
    `UPDATE delivery_attempts SET claimed_at = NULL, next_attempt_at = now(), updated_at = now()
     WHERE attempt_id = ANY ($1::uuid[]) AND status = 'pending'`,
    [attemptIds],
  );
}
