// Workspaces and their bearer tokens. A token is `chp_` + 32 random bytes (256 bits,
// base64url): the official client SDKs refuse any key without that prefix. Only its SHA-256
// is stored and lookups go by that hash, so tokens issued earlier (`alm_…`) keep working.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../stores/postgres.js';

const TOKEN_PREFIX = 'chp_';
const TOKEN_RANDOM_BYTES = 32;

export interface IssuedToken {
  readonly token: string;
  readonly workspaceId: string;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Compares two secrets in constant time (by their hashes, so lengths may differ). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(Buffer.from(hashToken(a), 'hex'), Buffer.from(hashToken(b), 'hex'));
}

/** Creates the workspace on first use, updates its owner email when given, and issues one more token. */
export async function issueToken(db: Queryable, workspaceId: string, email: string | undefined): Promise<IssuedToken> {
  const token = TOKEN_PREFIX + randomBytes(TOKEN_RANDOM_BYTES).toString('base64url');
  await db.query(
    `INSERT INTO workspaces (user_id, email) VALUES ($1, $2)
     ON CONFLICT (user_id) DO UPDATE
       SET email = COALESCE(EXCLUDED.email, workspaces.email),
           updated_at = CASE WHEN EXCLUDED.email IS NULL THEN workspaces.updated_at ELSE now() END`,
    [workspaceId, email ?? null],
  );
  await db.query('INSERT INTO api_tokens (token_hash, user_id, token_prefix) VALUES ($1, $2, $3)', [
    hashToken(token),
    workspaceId,
    token.slice(0, TOKEN_PREFIX.length + 4),
  ]);
  return { token, workspaceId };
}

/**
 * Finds the workspace of a token. Answers are cached for a short time so that the ingest
 * hot path does not query Postgres on every request; unknown tokens are never cached.
 * Requests that arrive together with a token not in the cache share one lookup: 256 clients
 * starting with a new token made 70 identical queries, which the embedded Postgres's one
 * connection ran one after another while the control plane waited behind them.
 */
export class TokenAuthenticator {
  private readonly cache = new Map<string, { workspaceId: string; expiresAt: number }>();
  /** Lookups under way, by token hash. */
  private readonly lookups = new Map<string, Promise<string | null>>();

  constructor(
    private readonly db: Queryable,
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 10_000,
  ) {}

  /** The workspace id of a token, or null when the token is unknown. */
  async authenticate(token: string): Promise<string | null> {
    const hash = hashToken(token);
    const now = Date.now();
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > now) return cached.workspaceId;

    let lookup = this.lookups.get(hash);
    if (lookup === undefined) {
      lookup = this.lookUp(hash).finally(() => this.lookups.delete(hash));
      this.lookups.set(hash, lookup);
    }
    return lookup;
  }

  private async lookUp(hash: string): Promise<string | null> {
    const rows = await this.db.query<{ user_id: string }>('SELECT user_id FROM api_tokens WHERE token_hash = $1', [hash]);
    const row = rows[0];
    if (!row) {
      this.cache.delete(hash);
      return null;
    }
    const workspaceId = row.user_id;
    if (this.cache.size >= this.maxEntries) this.cache.clear();
    this.cache.set(hash, { workspaceId, expiresAt: Date.now() + this.ttlMs });
    return workspaceId;
  }
}
