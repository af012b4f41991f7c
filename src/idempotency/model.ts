// Idempotency keys (docs/api.md, Safe retries): what a key is, and how long it holds.

/** 1–255 printable ASCII characters (space to tilde). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** A key answers with its first answer for this long; after it, the key may be used afresh. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3_600_000;

/**
 * A key whose first request has not answered after this long is taken to be abandoned (its
 * process stopped mid-way), and the next request with it runs afresh.
 */
export const ABANDONED_CLAIM_MS = 60_000;

/** The first answer to a key, to send again. */
export interface StoredAnswer {
  readonly status: number;
  /** The body as it was sent (JSON text). */
  readonly body: string;
}

/**
 * What a request with a key finds:
 * claimed: it is the first (or the key expired, or its first request was abandoned); run it.
 * replay: the key was answered; send that answer again.
 * reused: the key was used for another request (another path or body).
 * busy: the first request with the key is still being answered.
 */
export type KeyClaim =
  | { readonly outcome: 'claimed' }
  | { readonly outcome: 'replay'; readonly answer: StoredAnswer }
  | { readonly outcome: 'reused' }
  | { readonly outcome: 'busy' };
