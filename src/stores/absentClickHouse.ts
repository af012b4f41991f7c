// The ClickHouse of a process that has none: a ROLE=ingest process publishing to a shared
// journal (JOURNAL_URL) never reads or writes ClickHouse, so it opens no engine and needs no
// disk. Anything that reaches for it anyway fails loudly, naming why.
import type { ClickHouseClient } from '@clickhouse/client';
import type { ClickHouseStore } from './clickhouse.js';

const refuse = (): never => {
  throw new Error('this process has no ClickHouse (ROLE=ingest with JOURNAL_URL only publishes to the journal)');
};

export function absentClickHouse(database: string): ClickHouseStore {
  return {
    mode: 'none',
    database,
    client: new Proxy({} as ClickHouseClient, { get: refuse }),
    analystQuery: async () => refuse(),
    analystTurn: async () => refuse(),
    insertBytes: async () => refuse(),
    analystUser: null,
    analystLimits: { maxMemoryBytes: 0, maxConcurrentQueries: 0 },
    ping: async () => refuse(),
    close: async () => {},
  };
}
