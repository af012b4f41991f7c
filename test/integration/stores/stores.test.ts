import { expect } from 'chai';
import { loadConfig } from '../../../src/config.js';
import { openStores, postgresOptions } from '../../../src/stores/index.js';
import { openPostgres, UNIQUE_VIOLATION, sqlState } from '../../../src/stores/postgres.js';
import { freshProcessEnv, freshStoreOptions, postgresMode } from '../../helpers/stores.js';

describe(`stores (Postgres ${postgresMode}, ClickHouse embedded)`, () => {
  it('keep their data across a close and reopen', async () => {
    const options = await freshStoreOptions();
    const first = await openStores(options);
    try {
      await first.postgres.query('INSERT INTO workspaces (user_id, email) VALUES ($1, $2)', ['persist', 'p@example.com']);
      await first.clickhouse.client.command({ query: 'CREATE TABLE persist_probe (x UInt32) ENGINE = MergeTree ORDER BY x' });
      await first.clickhouse.client.insert({ table: 'persist_probe', values: [{ x: 7 }, { x: 8 }], format: 'JSONEachRow' });
    } finally {
      await first.close();
    }
    const second = await openStores(options);
    try {
      const rows = await second.postgres.query('SELECT email FROM workspaces WHERE user_id = $1', ['persist']);
      expect(rows).to.deep.equal([{ email: 'p@example.com' }]);
      const sum = await (await second.clickhouse.client.query({ query: 'SELECT sum(x) AS s FROM persist_probe', format: 'JSONEachRow' })).json();
      expect(sum).to.deep.equal([{ s: 15 }]);
    } finally {
      await second.close();
    }
  });

  it('roll back a failed transaction and report SQLSTATE codes', async () => {
    const options = await freshStoreOptions();
    const stores = await openStores(options);
    try {
      let caught: unknown;
      try {
        await stores.postgres.transaction(async (tx) => {
          await tx.query('INSERT INTO workspaces (user_id) VALUES ($1)', ['tx-ws']);
          await tx.query('INSERT INTO workspaces (user_id) VALUES ($1)', ['tx-ws']);
        });
      } catch (err) {
        caught = err;
      }
      expect(sqlState(caught)).to.equal(UNIQUE_VIOLATION);
      expect(await stores.postgres.query('SELECT 1 FROM workspaces WHERE user_id = $1', ['tx-ws'])).to.have.length(0);
    } finally {
      await stores.close();
    }
  });

  it('keep the ClickHouse analyst session read-only', async () => {
    const stores = await openStores(await freshStoreOptions());
    try {
      expect(await stores.clickhouse.analystQuery('SELECT 1 + 1 AS two')).to.deep.equal([{ two: 2 }]);
      let caught: unknown;
      try {
        await stores.clickhouse.analystQuery('CREATE TABLE sneaky (x UInt8) ENGINE = Memory');
      } catch (err) {
        caught = err;
      }
      expect(String(caught)).to.match(/readonly/i);
      // The service's own session still writes.
      await stores.clickhouse.client.command({ query: 'CREATE TABLE allowed (x UInt8) ENGINE = Memory' });
    } finally {
      await stores.close();
    }
  });

  it('give the embedded Postgres the buffer pool EMBEDDED_POSTGRES_SHARED_BUFFERS_MB says, 128 MB by default', async function () {
    if (postgresMode !== 'embedded') this.skip();
    const sharedBuffers = async (setting: Record<string, string>) => {
      // A DATA_DIR as every test service's, without the tests' own setting.
      const { EMBEDDED_POSTGRES_SHARED_BUFFERS_MB: _tests, ...env } = await freshProcessEnv();
      const config = loadConfig({ ...env, ...setting });
      const store = await openPostgres(postgresOptions(config));
      try {
        return (await store.query<{ shared_buffers: string }>('SHOW shared_buffers'))[0]!.shared_buffers;
      } finally {
        await store.close();
      }
    };
    expect(await sharedBuffers({ EMBEDDED_POSTGRES_SHARED_BUFFERS_MB: '24' })).to.equal('24MB');
    expect(await sharedBuffers({})).to.equal('128MB');
  });
});
