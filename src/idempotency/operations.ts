// Idempotency keys of creates (docs/api.md, Safe retries): a request with a key runs once per workspace and
// key; a retry gets the first answer again. Only a successful answer is kept: a refused
// request frees its key, so the client can correct it and retry with the same key.
//
// A claim and the create it guards are two statements, not one transaction (the create runs
// in its domain's own): should the process stop between them, the key stays unanswered and is
// taken over after ABANDONED_CLAIM_MS, so a retry after that may create a second resource.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Queryable } from '../stores/postgres.js';
import { ABANDONED_CLAIM_MS, IDEMPOTENCY_KEY_TTL_MS, type KeyClaim } from './model.js';
import { deleteExpiredKeys, deleteUnansweredKey, findKey, insertOrTakeOverKey, recordAnswer } from './store.js';

/** How long a request waits for a concurrent first request with its key to answer, and how often it looks. */
const WAIT_FOR_FIRST_MS = 5_000;
const POLL_MS = 25;

/** The hash a key's request is known by: its method, path and body text. */
export function requestHashOf(method: string, path: string, bodyText: string): string {
  return createHash('sha256').update(`${method} ${path}\n${bodyText}`).digest('base64url');
}

/**
 * Claims `key` for the request of `requestHash`, or says what it was used for. A request that
 * finds the first one with its key still running waits for its answer (a client's retry often
 * arrives while the first attempt is still being served), up to a few seconds.
 */
export async function claimIdempotencyKey(db: Queryable, workspaceId: string, key: string, requestHash: string): Promise<KeyClaim> {
  const deadline = Date.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    if (await insertOrTakeOverKey(db, workspaceId, key, requestHash, IDEMPOTENCY_KEY_TTL_MS, ABANDONED_CLAIM_MS)) return { outcome: 'claimed' };
    const row = await findKey(db, workspaceId, key);
    // Deleted meanwhile (the first request failed, or it expired): try to claim it again.
    if (row === null) continue;
    if (row.request_hash !== requestHash) return { outcome: 'reused' };
    if (row.response_status !== null) return { outcome: 'replay', answer: { status: row.response_status, body: row.response_body ?? '' } };
    if (Date.now() >= deadline) return { outcome: 'busy' };
    await sleep(POLL_MS);
  }
}

/** Keeps the answer of a claimed key, for its retries. */
export function keepAnswer(db: Queryable, workspaceId: string, key: string, requestHash: string, status: number, body: string): Promise<void> {
  return recordAnswer(db, workspaceId, key, requestHash, status, body);
}

/** Frees a claimed key whose request failed. */
export function releaseIdempotencyKey(db: Queryable, workspaceId: string, key: string, requestHash: string): Promise<void> {
  return deleteUnansweredKey(db, workspaceId, key, requestHash);
}

/** Deletes the keys past their 24 hours; returns how many. */
export function expireIdempotencyKeys(db: Queryable): Promise<number> {
  return deleteExpiredKeys(db, IDEMPOTENCY_KEY_TTL_MS);
}
