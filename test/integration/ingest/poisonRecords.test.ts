// A journaled batch that ClickHouse refuses must not block the journal behind it (its
// request was already answered 200). The HTTP validation refuses text ClickHouse cannot
// parse, so these tests get such rows past it, straight into the ingest path: the journal
// writer splits a refused block down to the batch that holds the bad rows, sets that batch
// aside (kept under JOURNAL_DIR/refused, counted in /metrics), and stores the others.
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { prepareBatch } from '../../../src/ingest/journaledBatch.js';
import type { LogIngestor } from '../../../src/ingest/logIngestor.js';
import { createMetrics } from '../../../src/metrics.js';
import { openStores, type Stores } from '../../../src/stores/index.js';
import { holdJournalWriter, newRecord, openTestIngestor } from '../../helpers/ingest.js';
import { storedLogCount } from '../../helpers/logs.js';
import { freshStoreOptions, describeInOneRun } from '../../helpers/stores.js';

describeInOneRun('ingest: a journaled batch ClickHouse refuses is set aside alone', function () {
  this.timeout(120_000);
  const metrics = createMetrics();
  let stores: Stores;
  let ingestor: LogIngestor;
  let journalDir: string;
  before(async () => {
    stores = await openStores(await freshStoreOptions());
    for (const ws of ['poison', 'bystander-a', 'bystander-b']) await stores.postgres.query('INSERT INTO workspaces (user_id) VALUES ($1)', [ws]);
    ({ ingestor, journalDir } = await openTestIngestor(stores, { env: { INGEST_FLUSH_INTERVAL_MS: '300' }, metrics }));
  });
  after(async () => {
    await ingestor.close(0);
    await stores.close();
  });

  it("stores the other workspaces' batches of the same blocks, round after round, and keeps the refused ones aside", async () => {
    const rounds = 5;
    for (let round = 0; round < rounds; round++) {
      // The writer is held while a round's batches are journaled, so they go in one block.
      const release = await holdJournalWriter(ingestor);
      await Promise.all([
        ingestor.ingest(prepareBatch('poison', Date.now(), [newRecord(`fresh.${round}`, 1), newRecord('bad\ud800name', 2)])),
        ...['bystander-a', 'bystander-b'].map((ws) => ingestor.ingest(prepareBatch(ws, Date.now(), [newRecord(`ok.${round}`, 1), newRecord('ok.shared', 2)]))),
      ]);
      await release();
    }
    await ingestor.caughtUp();
    const refused = (await metrics.registry.getSingleMetric('alertmon_journal_refused_records_total')!.get()).values[0]!.value;
    expect({
      bystanderA: await storedLogCount(stores.clickhouse, 'bystander-a'),
      bystanderB: await storedLogCount(stores.clickhouse, 'bystander-b'),
      poison: await storedLogCount(stores.clickhouse, 'poison'),
      refused,
      keptAside: readdirSync(path.join(journalDir, 'refused')).length,
    }).to.deep.equal({ bystanderA: 2 * rounds, bystanderB: 2 * rounds, poison: 0, refused: 2 * rounds, keptAside: rounds });
  });

  it('goes on storing later batches of the same workspace', async () => {
    await ingestor.ingest(prepareBatch('poison', Date.now(), [newRecord('fresh.0', 5)]));
    await ingestor.caughtUp();
    expect(await storedLogCount(stores.clickhouse, 'poison')).to.equal(1);
  });
});
