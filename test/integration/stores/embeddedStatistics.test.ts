// PGlite runs no autovacuum, so without the store's own ANALYZE (embeddedStatistics.ts) the
// planner never has statistics and reads whole tables where an index answers. Embedded mode
// only: a Postgres server's autovacuum does this itself.
import { expect } from 'chai';
import type { Stores } from '../../../src/stores/index.js';
import { seedOutboxBurst } from '../../helpers/outboxBurst.js';
import { openFreshStores, postgresMode } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';

const plan = async (stores: Stores, sql: string) =>
  (await stores.postgres.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`)).map((r) => r['QUERY PLAN']).join('\n');

(postgresMode === 'embedded' ? describe : describe.skip)('embedded Postgres statistics', function () {
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
});
