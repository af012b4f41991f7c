// A named lease in Postgres: at most one holder at a time, taken over once it expires. Each
// call is one statement, so no connection or transaction is held while the holder works.
import type { Queryable } from '../stores/postgres.js';

/** Takes or renews the lease for `ttlMs`; true when `holder` has it. */
export async function tryTakeLease(db: Queryable, name: string, holder: string, ttlMs: number): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO worker_leases (name, holder, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
     ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
       WHERE worker_leases.expires_at < now() OR worker_leases.holder = EXCLUDED.holder
     RETURNING holder`,
    [name, holder, ttlMs],
  );
  return rows.length > 0;
}

/** Gives the lease up at once, if `holder` has it. */
export async function releaseLease(db: Queryable, name: string, holder: string): Promise<void> {
  await db.query('DELETE FROM worker_leases WHERE name = $1 AND holder = $2', [name, holder]);
}
