// One Postgres interface for both modes. Both go through `pg`, so result types, error codes
// and SQL are identical: a server through a pg.Pool, or embedded PGlite served to a
// one-connection pg.Pool inside the process (pgliteConnection.ts).
//
// No statement's failure may cost the next caller its connection. pg-pool's own
// `pool.query` discards the connection after *any* error, a unique violation included; with
// the one embedded connection (then served over a socket) the replacement raced the old
// socket's close against the socket server's connection cap, and the next caller got EPIPE
// (issue 7). So a connection is kept after an error the server reported (it answered, and the
// session is in sync again once it is ready for the next query) and replaced only after a
// connection-level failure, and a session is never handed back inside a transaction.
//
// A connection can also be cut while it is checked out (a Postgres restart or fail-over,
// pg_terminate_backend, idle_in_transaction_session_timeout): the pool listens for errors of
// idle connections only, and a checked-out client's unheard 'error' event ended the process.
// Every client is listened to from its connection on (its death can arrive in the same
// network read as its first ReadyForQuery, before any caller holds it); the operation on it
// fails with 503 database_unavailable (as does one that cannot connect), and the pool opens
// new connections for the next callers, so the service recovers by itself when Postgres is
// back.
import { mkdir } from 'node:fs/promises';
import pg from 'pg';
import { unavailable } from '../errors.js';
import { maintainEmbedded, type Maintenance } from './embeddedMaintenance.js';
import { PgliteConnection } from './pgliteConnection.js';
import { listenOnServer, type Unlisten } from './postgresListener.js';
import type { Queryable } from './queryable.js';

export type { Queryable, Row } from './queryable.js';

export interface PostgresStore extends Queryable {
  readonly mode: 'embedded' | 'server';
  /** Runs fn inside BEGIN … COMMIT on one connection; any throw rolls back. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  /** LISTEN on `channel` (postgresListener.ts): notifications from other processes; none in embedded mode. */
  listen(channel: string, onPayload: (payload: string) => void, onError: (err: unknown) => void): Unlisten;
  close(): Promise<void>;
}

export type PostgresOptions =
  | { readonly mode: 'server'; readonly url: string; readonly poolMax?: number }
  | {
      readonly mode: 'embedded';
      readonly dir: string;
      /** shared_buffers in MB (EMBEDDED_POSTGRES_SHARED_BUFFERS_MB); default Postgres's own, 128. */
      readonly sharedBuffersMb?: number;
    };

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
    return poolStore(
      'server',
      pool,
      async () => pool.end(),
      (channel, onPayload, onError) => listenOnServer(options.url, channel, onPayload, onError),
    );
  }
  return openEmbedded(options.dir, options.sharedBuffersMb);
}

async function openEmbedded(dir: string, sharedBuffersMb: number | undefined): Promise<PostgresStore> {
  // Loaded only in embedded mode: PGlite is a WASM build of Postgres, no server process.
  const { PGlite } = await import('@electric-sql/pglite');
  await mkdir(dir, { recursive: true });
  // PGlite zeroes the whole buffer pool as it starts (in WebAssembly, about 5 ms a MB here:
  // 0.73 of the 1.1-1.4 s an open of the default 128 MB took in a profile).
  const startParams = sharedBuffersMb === undefined ? PGlite.defaultStartParams : [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffersMb}MB`];
  const db = await PGlite.create(dir, { startParams });
  // PGlite is one session: a single pooled connection keeps every transaction whole.
  const pool = new pg.Pool({ stream: () => new PgliteConnection(db), user: 'postgres', database: 'postgres', max: 1, idleTimeoutMillis: 0, types });
  let maintenance: Maintenance | null = null;
  const store = poolStore(
    'embedded',
    pool,
    async () => {
      await maintenance?.stop();
      await pool.end();
      await db.close();
    },
    (channel, onPayload, onError) => listenInSession(pool, channel, onPayload, onError),
  );
  // No autovacuum runs in PGlite: without this, the planner never has statistics and no row is ever frozen (embeddedMaintenance.ts).
  maintenance = maintainEmbedded(store, (err) => process.emitWarning(`embedded Postgres: ANALYZE or VACUUM failed: ${String(err)}`));
  return store;
}

/**
 * LISTEN on the one PGlite session (every pooled connection is that session): NOTIFYs of
 * this process's own transactions arrive with the reply to their COMMIT, so a committed
 * outbox row wakes the delivery worker in embedded mode too.
 */
function listenInSession(pool: pg.Pool, channel: string, onPayload: (payload: string) => void, onError: (err: unknown) => void): Unlisten {
  let stopped = false;
  const onNotification = (message: pg.Notification) => {
    if (!stopped && message.channel === channel) onPayload(message.payload ?? '');
  };
  const attached = new WeakSet<pg.PoolClient>();
  const attach = (client: pg.PoolClient) => {
    if (attached.has(client)) return;
    attached.add(client);
    client.on('notification', onNotification);
  };
  // The connection open now, and any that replaces it.
  pool.on('connect', attach);
  void (async () => {
    const client = await pool.connect();
    try {
      attach(client);
      // The channel name is a fixed identifier of ours, never input.
      await client.query(`LISTEN ${channel}`);
    } finally {
      client.release();
    }
  })().catch(onError);
  return async () => {
    stopped = true;
    pool.off('connect', attach);
  };
}

/** A failure of the connection rather than of the statement: the server did not answer, or ended the session. */
function isConnectionFailure(err: unknown): boolean {
  if (!(err instanceof pg.DatabaseError)) return true;
  return err.code?.startsWith('08') === true || err.severity === 'FATAL' || err.severity === 'PANIC';
}

// Socket-level failures: the server is gone or unreachable.
const SOCKET_ERROR_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * The database went away or cannot be reached (as opposed to a statement it refused, or a
 * malformed message of ours, 08P01): the operation may succeed if retried once it is back.
 */
function isDatabaseLoss(err: unknown): boolean {
  if (err instanceof pg.DatabaseError) {
    const code = err.code ?? '';
    // 57P01-57P03: admin shutdown, crash shutdown, cannot connect now; 08xxx: connection exceptions.
    return code.startsWith('57P') || (code.startsWith('08') && code !== '08P01');
  }
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && SOCKET_ERROR_CODES.has(code)) return true;
  const message = err instanceof Error ? err.message : '';
  return /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect/i.test(message);
}

const databaseUnavailable = (cause: unknown) =>
  Object.assign(unavailable('database_unavailable', 'The database connection was lost or could not be opened; retry shortly.', 1), { cause });

/** Thrown when a transaction ended without committing although no statement of it threw. */
export class TransactionRolledBackError extends Error {
  constructor() {
    super('the transaction was rolled back by the server (a statement in it failed and its error was caught)');
    this.name = 'TransactionRolledBackError';
  }
}

type Run = <R extends object>(text: string, params?: readonly unknown[]) => Promise<pg.QueryResult<R>>;

function poolStore(mode: PostgresStore['mode'], pool: pg.Pool, shutdown: () => Promise<void>, listen: PostgresStore['listen']): PostgresStore {
  // An idle client that fails (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // A checked-out client's failure is heard here (the pool hears only idle ones) and makes the
  // operation on it fail; 'connect' is emitted before the client is handed to anyone.
  const lostConnections = new WeakMap<pg.Client, Error>();
  pool.on('connect', (client) => {
    client.on('error', (err) => {
      if (!lostConnections.has(client)) lostConnections.set(client, err);
    });
  });
  let closed: Promise<void> | null = null;
  // pg's pool, once ended, neither serves nor fails the callers already waiting for a
  // connection: they would wait forever. Closing the store fails them, and every caller after
  // it, so a task whose store was closed under it stops at once (it waited out its stop
  // time-out, 15 s, measured in the test of a failed store). Each caller is held only while it
  // waits: racing every checkout against one promise settled at the close kept a reaction per
  // checkout on that promise until the close, about 325 bytes per query for the process's life.
  let closedError: Error | null = null;
  const waiting = new Set<(err: Error) => void>();

  function checkOut(): Promise<pg.PoolClient> {
    if (closedError !== null) return Promise.reject(closedError);
    return new Promise((resolve, reject) => {
      waiting.add(reject);
      pool.connect().then(
        (client) => {
          // A connection handed over after the close goes straight back (and is ended with the pool).
          if (waiting.delete(reject)) resolve(client);
          else client.release();
        },
        (err: unknown) => {
          waiting.delete(reject);
          reject(isDatabaseLoss(err) ? databaseUnavailable(err) : err);
        },
      );
    });
  }

  /**
   * Runs fn with a checked-out connection. The connection goes back to the pool unless one
   * of its statements failed at the connection level or it could not be brought back outside
   * a transaction; then it is closed and the pool opens a new one for the next caller.
   */
  async function withClient<T>(fn: (run: Run) => Promise<T>): Promise<T> {
    const client = await checkOut();
    let broken: Error | undefined;
    const run: Run = async (text, params = []) => {
      try {
        return await client.query(text, params as unknown[]);
      } catch (err) {
        const lost = lostConnections.get(client);
        if (isConnectionFailure(err) || lost !== undefined) broken ??= lost ?? (err as Error);
        throw lost !== undefined || isDatabaseLoss(err) ? databaseUnavailable(err) : err;
      }
    };
    try {
      return await fn(run);
    } finally {
      // The connection may have died between statements, with nothing running on it.
      broken ??= lostConnections.get(client);
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
    listen,
    close() {
      if (closed === null) {
        closedError = new Error('the Postgres store was closed');
        for (const reject of waiting) reject(closedError);
        waiting.clear();
        closed = shutdown();
      }
      return closed;
    },
  };
}

/** The SQLSTATE of a Postgres error, e.g. 23505 for a unique violation. */
export function sqlState(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}
export const UNIQUE_VIOLATION = '23505';
