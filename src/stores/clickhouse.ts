// One ClickHouse interface for both modes, both through @clickhouse/client: a server over
// HTTP, or the embedded chDB engine plugged in as the client's connection.
//
// chDB runs each connection as one session and applies per-query settings as session-wide
// SETs, so it ignores the client's `database` option: we `USE` the database once per
// connection, and the read-only analyst path gets a connection of its own.
import { createHmac } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { createClient, parseError, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';

/** How much the analysts' queries may take (docs/analyst-sql.md, Limits). */
export interface AnalystLimits {
  /** Memory of one query (max_memory_usage). */
  readonly maxMemoryBytes: number;
  /** Queries run at once by this process; the rest wait their turn. */
  readonly maxConcurrentQueries: number;
}

/** One statement on an analyst session, its rows as objects. */
export type AnalystStatement = (sql: string, params?: Record<string, unknown>) => Promise<Record<string, unknown>[]>;

/** Analyst turns that may wait beside those running: a bounded queue, so that a wait is bounded too. */
export const analystQueueLength = (limits: AnalystLimits) => 2 * limits.maxConcurrentQueries;

/** Every analyst turn runs and the queue is full. */
export class AnalystBusyError extends Error {
  constructor(readonly running: number) {
    super(`${running} analyst queries run and as many again wait; try again later`);
    this.name = 'AnalystBusyError';
  }
}

export const DEFAULT_ANALYST_LIMITS: AnalystLimits = { maxMemoryBytes: 1024 ** 3, maxConcurrentQueries: 2 };

export type ClickHouseOptions = (
  | {
      readonly mode: 'server';
      readonly url: string;
      readonly user: string;
      readonly password: string;
      readonly database: string;
    }
  | { readonly mode: 'embedded'; readonly path: string; readonly database: string }
) & { readonly analyst?: AnalystLimits };

type ChdbAsClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;

/** A whole number beyond ±2^53, or an array holding one: what chDB refuses to bind. */
const unbindable = (value: unknown): boolean =>
  typeof value === 'number' ? Number.isInteger(value) && !Number.isSafeInteger(value) : Array.isArray(value) && value.some(unbindable);

/** The value with each such number as its bigint: a double that large is an exact integer, so the bigint is the same value. */
function bindable(value: unknown): unknown {
  if (!unbindable(value)) return value;
  return Array.isArray(value) ? value.map(bindable) : BigInt(value as number);
}

/**
 * The chDB connection, its queries' parameters made bindable. chDB refuses a whole number
 * beyond ±2^53 whatever the parameter's type, a Float64 too (a policy's threshold of 1e20,
 * sent as a number, failed the worker's whole cycle); the HTTP client writes every number as
 * it is. Most queries hold no such number: their parameters are passed on as they are, not copied.
 */
function withBindableParams<C extends object>(connection: C): C {
  return new Proxy(connection, {
    get(target, key) {
      const member: unknown = Reflect.get(target, key, target);
      if (typeof member !== 'function') return member;
      if (key !== 'query' && key !== 'exec' && key !== 'command' && key !== 'insert') return member.bind(target);
      return (params: { query_params?: Record<string, unknown> }) => {
        const given = params.query_params;
        if (given === undefined || !Object.values(given).some(unbindable)) return member.call(target, params);
        return member.call(target, { ...params, query_params: Object.fromEntries(Object.entries(given).map(([name, v]) => [name, bindable(v)])) });
      };
    },
  });
}

/** Rows given as bytes in a text format, with the insert's own settings. */
export interface BytesInsert {
  readonly table: string;
  readonly columns: readonly string[];
  readonly format: 'JSONCompactEachRow';
  /** Numbers, or strings the service built (quoted here). */
  readonly settings: Readonly<Record<string, string | number>>;
  readonly body: Buffer;
}

export interface ClickHouseStore {
  /** 'none': a process without ClickHouse (absentClickHouse.ts). */
  readonly mode: 'embedded' | 'server' | 'none';
  readonly database: string;
  /** Client whose default database is `database`. */
  readonly client: ClickHouseClient;
  /**
   * Runs one statement on an analysts' read-only session (ANALYST_LIMITS, analystLimits) and
   * returns its rows: analystTurn with that one statement.
   * Unchecked: analysts' own SQL goes through runAnalystQuery (src/analytics/analystSql.ts).
   */
  analystQuery(sql: string, params?: Record<string, unknown>): Promise<Record<string, unknown>[]>;
  /**
   * Runs fn with an analysts' session of its own for all its statements: at most
   * analystLimits.maxConcurrentQueries turns run at once, at most analystQueueLength(limits)
   * wait in order, and beyond that it throws AnalystBusyError at once.
   */
  analystTurn<T>(fn: (query: AnalystStatement) => Promise<T>): Promise<T>;
  /**
   * Inserts rows given as bytes (the journal writer's blocks): to a server they are the
   * request's body; embedded, chDB takes the buffer as it is, with no copy and no conversion
   * to text on the event loop. Errors are ClickHouse's (`type` names the exception).
   */
  insertBytes(insert: BytesInsert): Promise<void>;
  /** The ClickHouse user the analyst session runs as, when it is not the service's own (server mode). */
  readonly analystUser: string | null;
  readonly analystLimits: AnalystLimits;
  ping(): Promise<void>;
  close(): Promise<void>;
}

// Settings every query runs with, identical in both modes (chDB's defaults differ from a
// server's): we batch inserts ourselves, so async_insert stays off and an insert returns
// only once its rows and every materialized view are written. The three rollup views of
// an insert run in parallel (measured: a 2,000-row insert 35.9 → 27.3 ms on chDB).
const SESSION_SETTINGS: ClickHouseSettings = {
  async_insert: 0,
  parallel_view_processing: 1,
  output_format_json_quote_64bit_integers: 0,
  date_time_output_format: 'iso',
};

// The analyst session: no writes, no DDL, no setting changes; bounded result, time and memory.
// readonly comes last so that the limits before it are still allowed to be set.
export const ANALYST_LIMITS = { maxResultRows: 10_000, maxExecutionSeconds: 30 } as const;
function analystSettings(limits: AnalystLimits, mode: ClickHouseStore['mode'], ownUser: boolean): ClickHouseSettings {
  return {
    max_result_rows: String(ANALYST_LIMITS.maxResultRows),
    result_overflow_mode: 'throw',
    max_execution_time: ANALYST_LIMITS.maxExecutionSeconds,
    timeout_overflow_mode: 'throw',
    // The engine checks memory at every allocation, also inside one block that its time
    // check cannot interrupt (range(3e8) in one block ran 45 s past a 30 s limit, to 8 GB).
    max_memory_usage: String(limits.maxMemoryBytes),
    // All analyst queries of every process together, where they run as a user of their own
    // (a server); in-process, at most maxConcurrentQueries run at once (analystQuery).
    ...(ownUser ? { max_memory_usage_for_user: String(limits.maxMemoryBytes * limits.maxConcurrentQueries) } : {}),
    // One thread per analyst query: the service's own reads, evaluation and inserts keep the
    // other cores (at most maxConcurrentQueries analyst threads run at once).
    max_threads: 1,
    // A server stops a query whose client gave up on it (ANALYST_REQUEST_TIMEOUT_MS).
    ...(mode === 'server' ? { cancel_http_readonly_queries_on_client_close: 1 } : {}),
    output_format_json_quote_64bit_integers: 0,
    date_time_output_format: 'iso',
    readonly: '1',
  };
}

// The analyst client's own deadline on a server, a little past the engine's time limit.
const ANALYST_REQUEST_TIMEOUT_MS = (ANALYST_LIMITS.maxExecutionSeconds + 10) * 1000;

/** At most `limit` callers at once; at most `queue` others wait in order; beyond, AnalystBusyError. */
function concurrencyLimit(limit: number, queue: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (fn) => {
    if (running >= limit) {
      if (waiting.length >= queue) throw new AnalystBusyError(running);
      await new Promise<void>((resolve) => waiting.push(resolve));
    } else running++;
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next === undefined) running--;
      else next();
    }
  };
}

export async function openClickHouse(options: ClickHouseOptions): Promise<ClickHouseStore> {
  const { database } = options;
  const limits = options.analyst ?? DEFAULT_ANALYST_LIMITS;
  if (options.mode === 'server') {
    const connect = (db: string, settings: ClickHouseSettings) =>
      createClient({
        url: options.url,
        username: options.user,
        password: options.password,
        database: db,
        clickhouse_settings: settings,
        request_timeout: 120_000,
      });
    const bootstrap = connect('default', {});
    let analyst: AnalystCredentials | null;
    try {
      await bootstrap.command({ query: 'CREATE DATABASE IF NOT EXISTS {db:Identifier}', query_params: { db: database } });
      analyst = await ensureAnalystUser(bootstrap, database, options.password);
    } finally {
      await bootstrap.close();
    }
    const analystClient = createClient({
      url: options.url,
      username: analyst?.user ?? options.user,
      password: analyst?.password ?? options.password,
      database,
      clickhouse_settings: analystSettings(limits, 'server', analyst !== null),
      request_timeout: ANALYST_REQUEST_TIMEOUT_MS,
    });
    const client = connect(database, SESSION_SETTINGS);
    const insertBytes = async (insert: BytesInsert) => {
      const result = await client.exec({ query: bytesInsertStatement(insert), values: Readable.from([insert.body]) });
      result.stream.resume();
    };
    // The HTTP client runs its requests side by side: one client serves every turn.
    const analysts = Array.from({ length: limits.maxConcurrentQueries }, () => analystClient);
    return store('server', database, client, analysts, analyst?.user ?? null, limits, insertBytes);
  }

  const { createChdbConnection } = await import('chdb/connection');
  await mkdir(options.path, { recursive: true });
  const session = async (settings: ClickHouseSettings) => {
    const chdb = createChdbConnection({ path: options.path });
    // chdb types its connection against @clickhouse/client-common, which the client bundles
    // under another path; the two Connection interfaces are the same contract.
    const client = createClient({ connection: withBindableParams(chdb) as unknown as ChdbAsClientConnection });
    await client.command({ query: 'CREATE DATABASE IF NOT EXISTS {db:Identifier}', query_params: { db: database } });
    await client.command({ query: 'USE {db:Identifier}', query_params: { db: database } });
    // Session-wide from here on; later queries cannot undo a readonly lock.
    await client.command({ query: 'SELECT 1', clickhouse_settings: settings });
    return { client, rawInsert: chdb.chdb.rawInsert };
  };
  // In-process the analyst session runs as the service's own user: no per-user memory bound
  // (it would stop the service's queries too), only the per-query one and the turn-taking.
  const service = await session(SESSION_SETTINGS);
  // chDB runs one query at a time on a connection: one session per analyst turn, so that
  // maxConcurrentQueries really run side by side (one session made them take turns).
  const analysts: ClickHouseClient[] = [];
  for (let i = 0; i < limits.maxConcurrentQueries; i++) analysts.push((await session(analystSettings(limits, 'embedded', false))).client);
  const insertBytes = async (insert: BytesInsert) => {
    try {
      await service.rawInsert({ table: insert.table, columns: insert.columns, format: insert.format, settings: insert.settings, values: insert.body });
    } catch (err) {
      // chDB's insert errors carry ClickHouse's message ("Code: 27. DB::Exception: … (TYPE)").
      throw parseError(err instanceof Error ? err.message : String(err));
    }
  };
  return store('embedded', database, service.client, analysts, null, limits, insertBytes);
}

interface AnalystCredentials {
  readonly user: string;
  readonly password: string;
}

const quoteIdentifier = (name: string) => '`' + name.replace(/\\/g, '\\\\').replace(/`/g, '\\`') + '`';

/**
 * A ClickHouse user for the analysts' SQL whose only grant is SELECT on this database, so
 * that the server itself refuses files, URLs, other databases and KILL QUERY whatever the
 * query check lets through. Its password is derived from the service's own (every process
 * with the same configuration derives the same one). Null when the service's user may not
 * manage users: the analyst session then runs as the service's user, read-only.
 */
async function ensureAnalystUser(client: ClickHouseClient, database: string, password: string): Promise<AnalystCredentials | null> {
  const user = `${database}_analyst`;
  const analystPassword = createHmac('sha256', password).update(`alertmon analyst of ${database}`).digest('hex');
  const name = quoteIdentifier(user);
  try {
    // The password is hex, safe inside quotes; CREATE USER takes no query parameters.
    const identified = `IDENTIFIED WITH sha256_password BY '${analystPassword}' DEFAULT DATABASE ${quoteIdentifier(database)}`;
    await client.command({ query: `CREATE USER IF NOT EXISTS ${name} ${identified}` });
    await client.command({ query: `ALTER USER ${name} ${identified}` });
    await client.command({ query: `REVOKE ALL ON *.* FROM ${name}` });
    await client.command({ query: `GRANT SELECT ON ${quoteIdentifier(database)}.* TO ${name}` });
    return { user, password: analystPassword };
  } catch {
    return null;
  }
}

/** `INSERT INTO t (c, …) SETTINGS k = v, … FORMAT f`: the statement of a bytes insert sent to a server. */
function bytesInsertStatement(insert: BytesInsert): string {
  const settings = Object.entries(insert.settings).map(
    ([name, value]) => `${name} = ${typeof value === 'number' ? value : `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`}`,
  );
  return `INSERT INTO ${insert.table} (${insert.columns.join(', ')})${settings.length > 0 ? ` SETTINGS ${settings.join(', ')}` : ''} FORMAT ${insert.format}`;
}

function store(
  mode: ClickHouseStore['mode'],
  database: string,
  client: ClickHouseClient,
  analysts: readonly ClickHouseClient[],
  analystUser: string | null,
  limits: AnalystLimits,
  insertBytes: (insert: BytesInsert) => Promise<void>,
): ClickHouseStore {
  let closed: Promise<void> | null = null;
  const turn = concurrencyLimit(limits.maxConcurrentQueries, analystQueueLength(limits));
  const free = [...analysts];
  // exec sends the statement as it is: query() would append a FORMAT clause, which an
  // EXPLAIN passes on to the SELECT inside it. default_format sets the output instead.
  const statementOn =
    (analyst: ClickHouseClient): AnalystStatement =>
    async (sql, params) => {
      const result = await analyst.exec({
        query: sql,
        ...(params === undefined ? {} : { query_params: params }),
        clickhouse_settings: { default_format: 'JSONEachRow' },
      });
      const chunks: Buffer[] = [];
      for await (const chunk of result.stream) chunks.push(Buffer.from(chunk as Uint8Array));
      return Buffer.concat(chunks)
        .toString('utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    };
  const analystTurn = <T>(fn: (query: AnalystStatement) => Promise<T>) =>
    turn(async () => {
      const analyst = free.pop()!;
      try {
        return await fn(statementOn(analyst));
      } finally {
        free.push(analyst);
      }
    });
  return {
    mode,
    database,
    client,
    analystUser,
    analystLimits: limits,
    insertBytes,
    analystTurn,
    analystQuery: (sql, params) => analystTurn((query) => query(sql, params)),
    async ping() {
      const result = await client.ping();
      if (!result.success) throw result.error;
    },
    close() {
      closed ??= Promise.all([client.close(), ...[...new Set(analysts)].map((a) => a.close())]).then(() => undefined);
      return closed;
    },
  };
}
