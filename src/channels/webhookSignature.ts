// Signed webhooks, the Standard Webhooks scheme (docs/api.md, Signed webhooks): every request
// carries webhook-id (the notification id, the same on every retry), webhook-timestamp (Unix
// seconds of this try) and webhook-signature, "v1,<base64 HMAC-SHA256>" of
// "<id>.<timestamp>.<body>" keyed with the secret's bytes, one per secret in force
// (space-separated): after a rotation the previous secret signs beside the new one for 24 hours.
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

export const SIGNING_SECRET_PREFIX = 'whsec_';
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

export function newSigningSecret(): string {
  return `${SIGNING_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

export interface SigningSecrets {
  readonly signing_secret?: string | null;
  readonly previous_signing_secret?: string | null;
  readonly previous_signing_secret_expires_at?: Date | string | null;
}

/** The secrets that sign a request sent at `nowMs`: the current one, then the previous one during its overlap. */
export function secretsInForce(secrets: SigningSecrets, nowMs: number): string[] {
  const inForce: string[] = [];
  if (secrets.signing_secret) inForce.push(secrets.signing_secret);
  const until = secrets.previous_signing_secret_expires_at;
  if (secrets.previous_signing_secret && until != null && new Date(until).getTime() > nowMs) inForce.push(secrets.previous_signing_secret);
  return inForce;
}

const keyOf = (secret: string) => Buffer.from(secret.startsWith(SIGNING_SECRET_PREFIX) ? secret.slice(SIGNING_SECRET_PREFIX.length) : secret, 'base64');

/**
 * HMAC keys prepared once per secret: a destination's secret signs every notification to it.
 * On Node 24 an HMAC keyed with bytes prepares a key object each time: 13.5 µs a signature of
 * a 1.5 KB body against 3.4 µs with the key prepared (scratch measurement); in a storm's
 * congested process the preparing took about 0.4 s of 10,000 deliveries.
 */
const KEYS_KEPT = 1_000;
const preparedKeys = new Map<string, KeyObject>();

function preparedKey(secret: string): KeyObject {
  let key = preparedKeys.get(secret);
  if (key === undefined) {
    key = createSecretKey(keyOf(secret));
    if (preparedKeys.size >= KEYS_KEPT) preparedKeys.delete(preparedKeys.keys().next().value!);
    preparedKeys.set(secret, key);
  }
  return key;
}

/** The three webhook-* headers for `body`; no signature header without a secret. */
export function signatureHeaders(webhookId: string, body: string, secrets: readonly string[], nowMs: number): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  const headers: Record<string, string> = { 'webhook-id': webhookId, 'webhook-timestamp': timestamp };
  if (secrets.length === 0) return headers;
  const signed = `${webhookId}.${timestamp}.${body}`;
  headers['webhook-signature'] = secrets.map((secret) => `v1,${createHmac('sha256', preparedKey(secret)).update(signed).digest('base64')}`).join(' ');
  return headers;
}
