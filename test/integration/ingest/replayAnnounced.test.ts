// Records journaled before a stop and inserted by the next process reach data-driven evaluation
// like any others: the writer replays the journal as the ingestor opens, so the listener of
// inserts is given at open (services.ts), not attached once the rest of the services are
// built, when the first replayed blocks would already be in ClickHouse unannounced and their
// policies judged only by the next periodic cycle.
import { expect } from 'chai';
import { prepareBatch } from '../../../src/ingest/journaledBatch.js';
import { openStores, type Stores } from '../../../src/stores/index.js';
import { ingestVisible, newRecord, openTestIngestor } from '../../helpers/ingest.js';
import { freshStoreOptions } from '../../helpers/stores.js';

describe('inserts replayed from the journal at open', function () {
  this.timeout(120_000);
  let stores: Stores;

  before(async () => {
    stores = await openStores(await freshStoreOptions());
    await stores.postgres.query('INSERT INTO workspaces (user_id) VALUES ($1)', ['replay-ws']);
  });
  after(() => stores.close());

  it('announces the event of every block the writer replays, from the first', async () => {
    // One insert every 10 s at most: the second batch waits in the journal when the ingestor stops.
    const env = { INGEST_FLUSH_INTERVAL_MS: '10000' };
    const first = await openTestIngestor(stores, { env });
    await ingestVisible(first.ingestor, 'replay-ws', [newRecord('inserted', 1)]);
    await first.ingestor.ingest(prepareBatch('replay-ws', Date.now(), [newRecord('waiting', 2), newRecord('waiting', 3)]));
    await first.ingestor.close(0);
    const waiting = await stores.postgres.query<{ event_id: string }>("SELECT event_id FROM event_definitions WHERE event = 'waiting'");
    expect(waiting).to.have.length(1);

    const heard = new Set<string>();
    const onInserted = (ids: ReadonlySet<string>) => {
      for (const id of ids) heard.add(id);
    };
    const second = await openTestIngestor(stores, { env, journalDir: first.journalDir, onInserted });
    try {
      await second.ingestor.caughtUp();
      expect([...heard]).to.deep.equal([waiting[0]!.event_id]);
    } finally {
      await second.ingestor.close(0);
    }
  });
});
