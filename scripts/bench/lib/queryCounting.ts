// Stores that count the queries sent through them, and time them, to report what one cycle
// costs and how much of its time the engines take.
import type { ClickHouseStore } from '../../../src/stores/clickhouse.js';
import type { PostgresStore, Queryable } from '../../../src/stores/postgres.js';

export interface QueryCounts {
  postgresStatements: number;
  postgresTransactions: number;
  /** Wall time inside Postgres statements (transactions' own BEGIN/COMMIT excluded), ms. */
  postgresMs: number;
  /** ClickHouse queries by the rollup period they read (or 'other'). */
  clickhouse: Map<string, number>;
  /** Wall time inside ClickHouse queries, results read included, ms. */
  clickhouseMs: number;
  /** Postgres statements by their opening words: how many, and the time inside them (ms). */
  postgresByStatement: Map<string, { count: number; ms: number }>;
  /** When (performance.now()) the last transaction that wrote notifications committed: the cycle's last page could leave then. */
  notificationsCommittedAt: number | null;
}

export const newCounts = (): QueryCounts => ({
  postgresStatements: 0,
  postgresTransactions: 0,
  postgresMs: 0,
  clickhouse: new Map(),
  clickhouseMs: 0,
  postgresByStatement: new Map(),
  notificationsCommittedAt: null,
});

/** A statement's opening words, enough to tell the statements of a cycle apart. */
const statementKey = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 70);

/** The `top` statements that took the most time, one line each. */
export function slowestStatements(counts: QueryCounts, top: number): string[] {
  return [...counts.postgresByStatement]
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, top)
    .map(([key, { count, ms }]) => `${ms.toFixed(0).padStart(7)} ms ${String(count).padStart(5)}×  ${key}`);
}

export function countingPostgres(store: PostgresStore, counts: QueryCounts): PostgresStore {
  const counted = (q: Queryable, seen?: { notifications: boolean }): Queryable => ({
    async query(text, params) {
      counts.postgresStatements += 1;
      if (seen && /INSERT INTO alert_notifications\b/.test(text)) seen.notifications = true;
      const started = performance.now();
      try {
        return await q.query(text, params);
      } finally {
        const ms = performance.now() - started;
        counts.postgresMs += ms;
        const key = statementKey(text);
        const statement = counts.postgresByStatement.get(key) ?? { count: 0, ms: 0 };
        statement.count += 1;
        statement.ms += ms;
        counts.postgresByStatement.set(key, statement);
      }
    },
  });
  return {
    ...store,
    ...counted(store),
    async transaction(fn) {
      counts.postgresTransactions += 1;
      const seen = { notifications: false };
      const result = await store.transaction((tx) => fn(counted(tx, seen)));
      if (seen.notifications) counts.notificationsCommittedAt = performance.now();
      return result;
    },
  } as PostgresStore;
}

export function countingClickHouse(store: ClickHouseStore, counts: QueryCounts): ClickHouseStore {
  const client = store.client;
  const query = (async (params: { query: string; query_params?: Record<string, unknown> }) => {
    // One rollup table holds every period: a read binds the periods it reads (period0, period1 …).
    const periods = Object.entries(params.query_params ?? {}).flatMap(([name, value]) =>
      /^period\d*$/.test(name) && typeof value === 'string' ? [value] : [],
    );
    const table = periods.length > 0 && /FROM rollups\b/.test(params.query) ? `rollups(${periods.join(', ')})` : 'other';
    counts.clickhouse.set(table, (counts.clickhouse.get(table) ?? 0) + 1);
    const started = performance.now();
    const result = await client.query(params as Parameters<typeof client.query>[0]);
    // Time until the rows are read too: wrap json() so its time counts.
    const json = result.json.bind(result);
    return Object.assign(result, {
      json: async () => {
        try {
          return await json();
        } finally {
          counts.clickhouseMs += performance.now() - started;
        }
      },
    });
  }) as typeof client.query;
  return { ...store, client: Object.assign(Object.create(client) as typeof client, { query }) };
}
