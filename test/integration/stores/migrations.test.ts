import { expect } from 'chai';
import { migrateClickHouse, migratePostgres, readMigrations, splitStatements } from '../../../src/stores/migrations.js';
import { openStores } from '../../../src/stores/index.js';
import { freshStoreOptions, postgresMode } from '../../helpers/stores.js';

describe(`migrations (Postgres ${postgresMode}, ClickHouse embedded)`, () => {
  it('applies every file once and records each once, also when run again', async () => {
    const options = await freshStoreOptions({ unmigrated: true });
    const stores = await openStores(options);
    try {
      const pgFiles = await readMigrations('postgres');
      const chFiles = await readMigrations('clickhouse');
      expect(pgFiles.length).to.be.greaterThan(0);
      expect(chFiles.length).to.be.greaterThan(0);

      expect(await migratePostgres(stores.postgres), 'nothing left to apply').to.deep.equal([]);
      expect(await migrateClickHouse(stores.clickhouse)).to.deep.equal([]);

      const pgRows = await stores.postgres.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(pgRows.map((r) => r.version)).to.deep.equal(pgFiles.map((f) => f.version));
      const chRows = await (
        await stores.clickhouse.client.query({
          query: 'SELECT version, count() AS n FROM schema_migrations GROUP BY version ORDER BY version',
          format: 'JSONEachRow',
        })
      ).json<{ version: string; n: number }>();
      expect(chRows).to.deep.equal(chFiles.map((f) => ({ version: f.version, n: 1 })));
    } finally {
      await stores.close();
    }
    // A restart applies nothing and records nothing again.
    const reopened = await openStores(options);
    try {
      const count = await reopened.postgres.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
      expect(count[0]!.n).to.equal((await readMigrations('postgres')).length);
    } finally {
      await reopened.close();
    }
  });

  it('splits files into statements at line-ending semicolons and drops comment lines', () => {
    const sql = "-- a comment; with a semicolon\nCREATE TABLE a (x text DEFAULT 'a;b');\n\nCREATE INDEX i ON a (x);  \n-- trailing\n";
    expect(splitStatements(sql)).to.deep.equal(["CREATE TABLE a (x text DEFAULT 'a;b')", 'CREATE INDEX i ON a (x)']);
  });
});
