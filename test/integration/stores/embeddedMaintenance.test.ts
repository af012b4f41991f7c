// PGlite runs no autovacuum, so without the store's own ANALYZE (embeddedMaintenance.ts) the
// planner never has statistics and reads whole tables where an index answers; without its
// VACUUM the space of dead rows is never used again, and no row is ever frozen against
// transaction-id wraparound. Embedded mode only:
// a Postgres server's autovacuum does both itself.
import { expect } from 'chai';
import { maintainEmbedded } from '../../../src/stores/embeddedMaintenance.js';
import type { Stores } from '../../../src/stores/index.js';
import { seedOutboxBurst } from '../../helpers/outboxBurst.js';
import { openFreshStores, postgresMode } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';

const plan = async (stores: Stores, sql: string) =>
  (await stores.postgres.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`)).map((r) => r['QUERY PLAN']).join('\n');

(postgresMode === 'embedded' ? describe : describe.skip)('embedded Postgres maintenance', function () {
  this.timeout(120_000);
  let stores: Stores;
  before(async () => {
    ({ stores } = await openFreshStores());
  });
  after(() => stores?.close());

  it('are gathered for a table that grew, so that the held-notifications probe uses its index', async () => {
    await seedOutboxBurst(stores.postgres, 'stats-ws', 'http://127.0.0.1:9/hook', 3_000);
    const heldProbe = 'SELECT EXISTS (SELECT 1 FROM alert_notifications WHERE held_since IS NOT NULL)';
    // Without statistics the planner expects nearly every row to be held and reads the table.
    expect(await plan(stores, heldProbe)).to.include('Seq Scan on alert_notifications');
    await waitFor(
      'alert_notifications analysed',
      async () => {
        const [row] = await stores.postgres.query<{ reltuples: number }>(`SELECT reltuples FROM pg_class WHERE relname = 'alert_notifications'`);
        return row!.reltuples >= 3_000 ? true : null;
      },
      20_000,
    );
    expect(await plan(stores, heldProbe)).to.include('alert_notifications_held_idx');
  });

  it('vacuums a table its updates grew, so that later updates use the space of its dead rows', async () => {
    const pages = async () =>
      (
        await stores.postgres.query<{ size: string; relpages: number }>(
          "SELECT pg_relation_size('churn') / current_setting('block_size')::int AS size, relpages FROM pg_class WHERE relname = 'churn'",
        )
      ).map((r) => ({ size: Number(r.size), seen: r.relpages }))[0]!;
    await stores.postgres.query('CREATE TABLE churn (id int PRIMARY KEY, n int NOT NULL, pad text NOT NULL)');
    await stores.postgres.query('CREATE INDEX churn_n_idx ON churn (n)');
    await stores.postgres.query("INSERT INTO churn SELECT g, 0, repeat('x', 200) FROM generate_series(1, 5000) AS g");
    const initial = (await pages()).size;
    // Each round gives every row a new version (n is indexed: not updated in place) and waits
    // for the store's next look to have seen the table as it now is.
    for (let round = 0; round < 4; round++) {
      await stores.postgres.query('UPDATE churn SET n = n + 1');
      await waitFor('the table looked at', async () => (({ size, seen }) => (size === seen ? true : null))(await pages()), 30_000);
    }
    // Kept for good, the dead versions would take five times the table's pages by now.
    expect((await pages()).size).to.be.at.most(initial * 3.5);
  });

  it('freezes every table once the oldest unfrozen transaction is old enough', async () => {
    const age = async (sql: string) => Number((await stores.postgres.query<{ age: string }>(sql))[0]!.age);
    const databaseAge = () => age('SELECT age(datfrozenxid)::int8 AS age FROM pg_database WHERE datname = current_database()');
    const tableAge = () => age("SELECT age(relfrozenxid)::int8 AS age FROM pg_class WHERE relname = 'policies'");
    // 1,500 write transactions, each with a transaction id of its own.
    await stores.postgres.query('CREATE TABLE burn (n int)');
    for (let i = 0; i < 1_500; i++) await stores.postgres.query('INSERT INTO burn VALUES ($1)', [i]);
    expect(await databaseAge()).to.be.at.least(1_500);
    expect(await tableAge()).to.be.at.least(1_500);
    // A second keeper with a low threshold: its first look is 5 s after it starts.
    const errors: unknown[] = [];
    const maintenance = maintainEmbedded(stores.postgres, (err) => errors.push(err), { freezeAge: 1_000 });
    try {
      await waitFor('the database frozen', async () => ((await databaseAge()) < 1_000 ? true : null), 20_000);
    } finally {
      await maintenance.stop();
    }
    expect(await tableAge()).to.be.below(1_000);
    expect(errors).to.deep.equal([]);
  });
});
