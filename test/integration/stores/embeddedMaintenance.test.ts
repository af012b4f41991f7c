// PGlite runs no autovacuum, so without the store's own ANALYZE (embeddedMaintenance.ts) the
// planner never has statistics and reads whole tables where an index answers, and without its
// VACUUM (FREEZE) no row is ever frozen against transaction-id wraparound. Embedded mode only:
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
  this.timeout(60_000);
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

  it('freezes every table once the oldest unfrozen transaction is old enough', async () => {
    const age = async (sql: string) => Number((await stores.postgres.query<{ age: string }>(sql))[0]!.age);
    const databaseAge = () => age('SELECT age(datfrozenxid)::int8 AS age FROM pg_database WHERE datname = current_database()');
    const tableAge = () => age("SELECT age(relfrozenxid)::int8 AS age FROM pg_class WHERE relname = 'policies'");
    // 1,500 write transactions, each with a transaction id of its own.
    await stores.postgres.query('CREATE TABLE burn (n int)');
    for (let i = 0; i < 1_500; i++) await stores.postgres.query('INSERT INTO burn VALUES ($1)', [i]);
    expect(await databaseAge()).to.be.at.least(1_500);
    expect(await tableAge()).to.be.at.least(1_500);
    // A second keeper with a low threshold: its first look is at once.
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
