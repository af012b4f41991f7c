// The real ClickHouse store, counting the queries sent through it: a test that says "one
// query, whatever the number of groups" counts them. Every query still runs on the engine.
import type { ClickHouseStore } from '../../src/stores/clickhouse.js';

export interface CountingClickHouse {
  readonly store: ClickHouseStore;
  /** The text of every query sent since the last reset. */
  readonly queries: string[];
  reset(): void;
}

export function countingClickHouse(real: ClickHouseStore): CountingClickHouse {
  const queries: string[] = [];
  const client = new Proxy(real.client, {
    get(target, name, receiver) {
      if (name !== 'query') return Reflect.get(target, name, receiver);
      return (params: Parameters<ClickHouseStore['client']['query']>[0]) => {
        queries.push(params.query);
        return target.query(params);
      };
    },
  });
  const store = new Proxy(real, { get: (target, name, receiver) => (name === 'client' ? client : Reflect.get(target, name, receiver)) });
  return { store, queries, reset: () => queries.splice(0) };
}
