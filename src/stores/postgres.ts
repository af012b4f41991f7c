// One Postgres interface for both modes. Both go through `pg`, so result types, error codes
// and SQL are identical: a server through a pg.Pool, or embedded PGlite served to a
// one-connection pg.Pool over a private Unix socket (pglite-socket).
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export type Row = Record<string, unknown>;

export interface Queryable {
  /** Runs one statement with bound parameters ($1, $2, …) and returns its rows. */
  query<R extends object = Row>(text: string, params?: readonly unknown[]): Promise<R[]>;
}

export interface PostgresStore extends Queryable {
  readonly mode: 'embedded' | 'server';
  /** Runs fn inside BEGIN … COMMIT on one connection; any throw rolls back. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type PostgresOptions =
  | { readonly mode: 'server'; readonly url: string; readonly poolMax?: number }
  | { readonly mode: 'embedded'; readonly dir: string };

// int8 (counts, sums of integers) as numbers, the same in both modes; values stay far below 2^53.
const INT8_OID = 20;
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID && format !== 'binary') return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

export async function openPostgres(options: PostgresOptions): Promise<PostgresStore> {
  if (options.mode === 'server') {
    const pool = new pg.Pool({ connectionString: options.url, max: options.poolMax ?? 10, types });
    return poolStore('server', pool, async () => pool.end());
  }
  return openEmbedded(options.dir);
}

async function openEmbedded(dir: string): Promise<PostgresStore> {
  // Loaded only in embedded mode: PGlite is a WASM build of Postgres, no server process.
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  await mkdir(dir, { recursive: true });
  const db = await PGlite.create(dir);
  // A socket in a fresh 0700 temp folder: reachable only by this user, never on the network.
  const socketDir = await mkdtemp(path.join(os.tmpdir(), 'alertmon-pg-'));
  const server = new PGLiteSocketServer({ db, path: path.join(socketDir, '.s.PGSQL.5432') });
  await server.start();
  // PGlite is one session: a single pooled connection keeps every transaction whole.
  const pool = new pg.Pool({
    host: socketDir,
    port: 5432,
    user: 'postgres',
    database: 'postgres',
    max: 1,
    idleTimeoutMillis: 0,
    types,
  });
  return poolStore('embedded', pool, async () => {
    await pool.end();
    await server.stop();
    await db.close();
    await rm(socketDir, { recursive: true, force: true });
  });
}

function poolStore(mode: PostgresStore['mode'], pool: pg.Pool, shutdown: () => Promise<void>): PostgresStore {
  // An idle client that fails (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  let closed: Promise<void> | null = null;
  return {
    mode,
    async query<R extends object>(text: string, params: readonly unknown[] = []) {
      return (await pool.query(text, params as unknown[])).rows as R[];
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const tx: Queryable = {
          async query<R extends object>(text: string, params: readonly unknown[] = []) {
            return (await client.query(text, params as unknown[])).rows as R[];
          },
        };
        const result = await fn(tx);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    close() {
      closed ??= shutdown();
      return closed;
    },
  };
}

/** The SQLSTATE of a Postgres error, e.g. 23505 for a unique violation. */
export function sqlState(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}
export const UNIQUE_VIOLATION = '23505';
