// The embedded Postgres is served to pg inside the process (pgliteConnection.ts): a statement
// is answered within the event-loop turn that sent it, so a control-plane read does not wait
// behind the turns of a loop busy with ingest, and a connection that ends inside a
// transaction leaves none open for the next one. Embedded mode only.
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { expect } from 'chai';
import pg from 'pg';
import { PgliteConnection } from '../../../src/stores/pgliteConnection.js';
import { openPostgres, type PostgresStore } from '../../../src/stores/postgres.js';
import { freshStoreOptions, postgresMode, testRoot, uniqueName } from '../../helpers/stores.js';

const clientOf = (db: PGlite) => new pg.Client({ stream: () => new PgliteConnection(db), user: 'postgres', database: 'postgres' });

(postgresMode === 'embedded' ? describe : describe.skip)('embedded Postgres connection', function () {
  this.timeout(60_000);

  describe('through the store', () => {
    let store: PostgresStore;
    before(async () => {
      store = await openPostgres((await freshStoreOptions()).postgres);
      await store.query('SELECT 1');
    });
    after(() => store?.close());

    it('answers statements and transactions within the event-loop turn that sent them', async () => {
      let turns = 0;
      const count = () => {
        turns++;
        immediate = setImmediate(count);
      };
      let immediate = setImmediate(count);
      try {
        const rows = await store.query<{ n: number; s: string }>('SELECT $1::int AS n, $2::text AS s', [7, 'é']);
        const committed = await store.transaction(async (tx) => (await tx.query<{ n: number }>('SELECT 2 AS n'))[0]!.n);
        expect(rows).to.deep.equal([{ n: 7, s: 'é' }]);
        expect(committed).to.equal(2);
        expect(turns).to.equal(0);
      } finally {
        clearImmediate(immediate);
      }
    });
  });

  describe('a connection that ends inside a transaction', () => {
    let db: PGlite;
    before(async () => {
      db = await PGlite.create(path.join(testRoot, uniqueName('pglite-connection')));
      await db.exec('CREATE TABLE kept (k int PRIMARY KEY)');
    });
    after(() => db?.close());

    for (const [how, end] of [
      ['destroyed', (client: pg.Client) => (client as unknown as { connection: { stream: PgliteConnection } }).connection.stream.destroy()],
      ['ended', (client: pg.Client) => client.end()],
    ] as const) {
      it(`rolls it back when ${how}, and the next connection starts clean`, async () => {
        const first = clientOf(db);
        await first.connect();
        await first.query('BEGIN');
        await first.query('INSERT INTO kept (k) VALUES (1)');
        first.on('error', () => {}); // a destroyed stream reports itself
        await end(first);
        const second = clientOf(db);
        await second.connect();
        try {
          expect((await second.query('SELECT count(*)::int AS n FROM kept')).rows).to.deep.equal([{ n: 0 }]);
          await second.query('BEGIN');
          await second.query('INSERT INTO kept (k) VALUES (1)');
          await second.query('COMMIT');
          expect((await second.query('SELECT count(*)::int AS n FROM kept')).rows).to.deep.equal([{ n: 1 }]);
          await second.query('DELETE FROM kept');
        } finally {
          await second.end();
        }
      });
    }
  });
});
