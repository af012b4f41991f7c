// Stores that count the queries sent through them, to report what one cycle costs.
import type { ClickHouseStore } from '../../../src/stores/clickhouse.js';
import type { PostgresStore, Queryable } from '../../../src/stores/postgres.js';

export interface QueryCounts {
  postgresStatements: number;
  postgresTransactions: number;
  /** ClickHouse queries by rollup table read (or 'other'). */
  clickhouse: Map<string, number>;
}

export const newCounts = (): QueryCounts => ({ postgresStatements: 0, postgresTransactions: 0, clickhouse: new Map() });

export function countingPostgres(store: PostgresStore, counts: QueryCounts): PostgresStore {
  const counted = (q: Queryable): Queryable => ({
    query(text, params) {
      counts.postgresStatements += 1;
      return q.query(text, params);
    },
  });
  return {
    ...store,
    ...counted(store),
    transaction(fn) {
      counts.postgresTransactions += 1;
      return store.transaction((tx) => fn(counted(tx)));
    },
  } as PostgresStore;
}

export function countingClickHouse(store: ClickHouseStore, counts: QueryCounts): ClickHouseStore {
  const client = store.client;
  const query = ((params: { query: string }) => {
    const table = /FROM (rollup_\w+)/.exec(params.query)?.[1] ?? 'other';
    counts.clickhouse.set(table, (counts.clickhouse.get(table) ?? 0) + 1);
    return client.query(params as Parameters<typeof client.query>[0]);
  }) as typeof client.query;
  return { ...store, client: Object.assign(Object.create(client) as typeof client, { query }) };
}
