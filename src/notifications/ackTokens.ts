// Acknowledge links (docs/api.md, Acknowledging from the message): every notification that
// asks a person to act (alert.triggered, alert.reminder, alert.escalated) carries a link
// with a random token of its own (192 bits, unrelated to any workspace token). Only the
// token's SHA-256 is stored; the token itself travels in the notification (the outbox row,
// which retries send again). A token acknowledges its own alert only, and only while that
// alert is triggered: the status is checked when it is used, so the link stops working when
// the alert leaves triggered.
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../stores/postgres.js';

const ACK_TOKEN_BYTES = 24;

/** The notification types whose messages carry an acknowledge link. */
export const ACK_LINK_TYPES: readonly string[] = ['alert.triggered', 'alert.reminder', 'alert.escalated'];

const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest();

export function newAckToken(): string {
  return randomBytes(ACK_TOKEN_BYTES).toString('base64url');
}

/** Stores the hashes of new tokens, one per (alert, token). */
export async function storeAckTokens(tx: Queryable, tokens: readonly { alertId: string; token: string }[]): Promise<void> {
  if (tokens.length === 0) return;
  await tx.query(
    `INSERT INTO alert_ack_tokens (token_hash, alert_id)
     SELECT * FROM unnest($1::bytea[], $2::uuid[])`,
    [tokens.map((t) => tokenHash(t.token)), tokens.map((t) => t.alertId)],
  );
}

/**
 * Whether `token` is one of the alert's link tokens. The lookup goes by the token's hash (an
 * index lookup on 256 bits, no comparison of secrets in JavaScript), so timing tells nothing.
 */
export async function ackTokenMatches(db: Queryable, alertId: string, token: string): Promise<boolean> {
  if (token.length === 0 || token.length > 200) return false;
  const rows = await db.query('SELECT 1 FROM alert_ack_tokens WHERE token_hash = $1 AND alert_id = $2', [tokenHash(token), alertId]);
  return rows.length > 0;
}
