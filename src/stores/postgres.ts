// One Postgres interface for both modes. Both go through `pg`, so result types, error codes
// and SQL are identical: a server through a pg.Pool, or embedded PGlite served to a
// one-connection pg.Pool over a private Unix socket (pglite-socket).
//
// No statement's failure may cost the next caller its connection. pg-pool's own
// `pool.query` discards the connection after *any* error, a unique violation included; with
// the one embedded connection the replacement then raced the old socket's close against the
// socket server's connection cap, and the next caller got EPIPE (issue 7). So a connection is
// kept after an error the server reported (it answered, and the session is in sync again once
// it is ready for the next query) and replaced only after a connection-level failure, and a
// session is never handed back inside a transaction.
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
  // Room for a replacement connection while a discarded one is still closing (Node refuses
  // connections past the cap outright); the pool below still uses one at a time.
  const server = new PGLiteSocketServer({ db, path: path.join(socketDir, '.s.PGSQL.5432'), maxConnections: 4 });
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

/** A failure of the connection rather than of the statement: the server did not answer, or ended the session. */
function isConnectionFailure(err: unknown): boolean {
  if (!(err instanceof pg.DatabaseError)) return true;
  return err.code?.startsWith('08') === true || err.severity === 'FATAL' || err.severity === 'PANIC';
}

/** Thrown when a transaction ended without committing although no statement of it threw. */
export class TransactionRolledBackError extends Error {
  constructor() {
    super('the transaction was rolled back by the server (a statement in it failed and its error was caught)');
    this.name = 'TransactionRolledBackError';
  }
}

type Run = <R extends object>(text: string, params?: readonly unknown[]) => Promise<pg.QueryResult<R>>;

function poolStore(mode: PostgresStore['mode'], pool: pg.Pool, shutdown: () => Promise<void>): PostgresStore {
  // An idle client that fails (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  let closed: Promise<void> | null = null;

  /**
   * Runs fn with a checked-out connection. The connection goes back to the pool unless one
   * of its statements failed at the connection level or it could not be brought back outside
   * a transaction; then it is closed and the pool opens a new one for the next caller.
   */
  async function withClient<T>(fn: (run: Run) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    let broken: Error | undefined;
    const run: Run = async (text, params = []) => {
      try {
        return await client.query(text, params as unknown[]);
      } catch (err) {
        if (isConnectionFailure(err)) broken ??= err as Error;
        throw err;
      }
    };
    try {
      return await fn(run);
    } finally {
      // The status comes from the last ReadyForQuery, so after a statement that failed outside
      // a transaction it still reads idle ('I'); the pool's next user waits for that message.
      if (broken === undefined && client.getTransactionStatus() !== 'I') await run('ROLLBACK').catch(() => {});
      client.release(broken ?? (client.getTransactionStatus() === 'I' ? undefined : new Error('left in a transaction')));
    }
  }

  return {
    mode,
    query<R extends object>(text: string, params: readonly unknown[] = []) {
      return withClient(async (run) => (await run<R>(text, params)).rows);
    },
    transaction<T>(fn: (tx: Queryable) => Promise<T>) {
      return withClient(async (run) => {
        await run('BEGIN');
        let result: T;
        try {
          result = await fn({ query: async <R extends object>(text: string, params?: readonly unknown[]) => (await run<R>(text, params)).rows });
        } catch (err) {
          await run('ROLLBACK').catch(() => {}); // if it fails, withClient discards the connection
          throw err;
        }
        // COMMIT of a transaction that a failed statement aborted answers ROLLBACK, not an error.
        const commit = await run('COMMIT');
        if (commit.command !== 'COMMIT') throw new TransactionRolledBackError();
        return result;
      });
    },
    async ping() {
      await this.query('SELECT 1');
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
