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
import { PgliteConnection } from './pgliteConnection.js';

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
  /**
   * Calls onSignal after each committed transaction, of this process or another on the same
   * database, that ran NOTIFY on `channel` (Postgres delivers notifications only at commit).
   * Resolves once listening; the returned function stops listening. A lost listening
   * connection is opened again and onSignal called once, since a signal may have been missed.
   */
  listen(channel: string, onSignal: () => void): Promise<() => void>;
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
    const listener = new ServerListener(options.url);
    return poolStore('server', pool, listener, async () => {
      await listener.close();
      await pool.end();
    });
  }
  return openEmbedded(options.dir);
}

async function openEmbedded(dir: string): Promise<PostgresStore> {
  // Loaded only in embedded mode: PGlite is a WASM build of Postgres, no server process.
  const { PGlite } = await import('@electric-sql/pglite');
  await mkdir(dir, { recursive: true });
  const db = await PGlite.create(dir);
  // PGlite is one session: a single pooled connection keeps every transaction whole.
  const pool = new pg.Pool({ stream: () => new PgliteConnection(db), user: 'postgres', database: 'postgres', max: 1, idleTimeoutMillis: 0, types });
  // The one PGlite session is every connection's: its LISTEN holds for the pool's connection
  // whichever it is, and notifications arrive on it with the reply to the COMMIT that sent them.
  const listeners = new SignalListeners();
  pool.on('connect', (client) => client.on('notification', (message) => listeners.signal(message.channel)));
  const embeddedListener: Listener = {
    async listen(channel, onSignal) {
      const first = listeners.add(channel, onSignal);
      if (first) await pool.query(`LISTEN ${quoteIdentifier(channel)}`);
      return () => listeners.remove(channel, onSignal);
    },
    async close() {},
  };
  return poolStore('embedded', pool, embeddedListener, async () => {
    await pool.end();
    await db.close();
  });
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

function poolStore(mode: PostgresStore['mode'], pool: pg.Pool, listener: Listener, shutdown: () => Promise<void>): PostgresStore {
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

  /**
   * Runs fn with a checked-out connection. The connection goes back to the pool unless one
   * of its statements failed at the connection level or it could not be brought back outside
   * a transaction; then it is closed and the pool opens a new one for the next caller.
   */
  async function withClient<T>(fn: (run: Run) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw isDatabaseLoss(err) ? databaseUnavailable(err) : err;
    }
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
    listen: (channel, onSignal) => listener.listen(channel, onSignal),
    close() {
      closed ??= shutdown();
      return closed;
    },
  };
}

interface Listener {
  listen(channel: string, onSignal: () => void): Promise<() => void>;
  close(): Promise<void>;
}

/** A channel name as an SQL identifier (LISTEN takes no bound parameter). */
function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The callbacks per channel of one process. */
class SignalListeners {
  private readonly byChannel = new Map<string, Set<() => void>>();

  /** True when it is the channel's first callback (the caller LISTENs). */
  add(channel: string, onSignal: () => void): boolean {
    const set = this.byChannel.get(channel) ?? new Set();
    this.byChannel.set(channel, set);
    set.add(onSignal);
    return set.size === 1;
  }
  remove(channel: string, onSignal: () => void): void {
    this.byChannel.get(channel)?.delete(onSignal);
  }
  channels(): string[] {
    return [...this.byChannel.keys()];
  }
  signal(channel: string): void {
    for (const onSignal of this.byChannel.get(channel) ?? []) onSignal();
  }
  signalAll(): void {
    for (const channel of this.byChannel.keys()) this.signal(channel);
  }
}

const RELISTEN_DELAY_MS = 1_000;

/**
 * LISTEN on a server: one connection of its own, outside the pool (a pooled connection
 * serves other callers and may be replaced). When it is lost it is opened again after a
 * pause, and every listener is signalled once, as a notification may have been missed.
 */
class ServerListener implements Listener {
  private readonly listeners = new SignalListeners();
  private client: Promise<pg.Client> | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;

  constructor(private readonly url: string) {}

  async listen(channel: string, onSignal: () => void): Promise<() => void> {
    const first = this.listeners.add(channel, onSignal);
    if (first) await (await this.connection()).query(`LISTEN ${quoteIdentifier(channel)}`);
    return () => this.listeners.remove(channel, onSignal);
  }

  private connection(): Promise<pg.Client> {
    this.client ??= this.open();
    return this.client;
  }

  private async open(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.url, types });
    client.on('notification', (message) => this.listeners.signal(message.channel));
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      for (const channel of this.listeners.channels()) await client.query(`LISTEN ${quoteIdentifier(channel)}`);
    } catch (err) {
      this.lost(client);
      throw isDatabaseLoss(err) ? databaseUnavailable(err) : err;
    }
    return client;
  }

  private lost(client: pg.Client): void {
    void client.end().catch(() => {});
    if (this.closed || this.retry !== null) return;
    this.client = null;
    this.retry = setTimeout(() => {
      this.retry = null;
      if (this.closed || this.listeners.channels().length === 0) return;
      this.connection().then(
        () => this.listeners.signalAll(),
        () => {}, // lost() has scheduled the next try
      );
    }, RELISTEN_DELAY_MS);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry !== null) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    if (client !== null) await (await client.catch(() => null))?.end().catch(() => {});
  }
}

/** The SQLSTATE of a Postgres error, e.g. 23505 for a unique violation. */
export function sqlState(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}
export const UNIQUE_VIOLATION = '23505';
