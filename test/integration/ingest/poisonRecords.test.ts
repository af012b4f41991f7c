// One workspace's bad records must not stop anyone else's ingest (issue 7, item 1). The HTTP
// validation refuses text ClickHouse cannot parse, so these tests get such rows past it,
// straight into the ingest path: a group commit that ClickHouse refuses for its rows is
// split until the request holding them is alone; that request gets 400 and leaves nothing
// behind (rows or event definitions), and the requests it was grouped with are stored.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../../src/config.js';
import { AppError } from '../../../src/errors.js';
import { EventDirectory } from '../../../src/events/eventDirectory.js';
import { LogIngestor } from '../../../src/ingest/logIngestor.js';
import type { NewLogRecord } from '../../../src/ingest/logWriter.js';
import { createLogger } from '../../../src/logger.js';
import { createMetrics } from '../../../src/metrics.js';
import { openStores, type Stores } from '../../../src/stores/index.js';
import { storedLogCount } from '../../helpers/logs.js';
import { freshStoreOptions } from '../../helpers/stores.js';

const record = (event: string, value: number, agent = 'host'): NewLogRecord => ({
  logId: randomUUID(),
  clientLogId: true,
  agent,
  event,
  value,
  occurredAt: Date.now() - 60_000,
  meta: '',
});

describe('ingest: a request ClickHouse refuses for its rows fails alone', function () {
  this.timeout(120_000);
  let stores: Stores;
  let ingestor: LogIngestor;
  before(async () => {
    stores = await openStores(await freshStoreOptions());
    for (const ws of ['poison', 'bystander-a', 'bystander-b']) await stores.postgres.query('INSERT INTO workspaces (user_id) VALUES ($1)', [ws]);
    // A long flush interval groups every request sent at once into one insert.
    const config = loadConfig({ INGEST_FLUSH_INTERVAL_MS: '300' });
    const directory = new EventDirectory(stores.postgres, config.events.maxDefinitionsPerWorkspace);
    ingestor = new LogIngestor({ clickhouse: stores.clickhouse, directory, config: config.ingest, metrics: createMetrics(), logger: createLogger('silent') });
    await ingestor.start();
  });
  after(async () => {
    await ingestor.drain();
    await stores.close();
  });

  const definitions = async (ws: string) =>
    (await stores.postgres.query<{ event: string }>('SELECT event FROM event_definitions WHERE user_id = $1 ORDER BY event', [ws])).map((d) => d.event);

  it("stores the other workspaces' batches of the same group commit, round after round", async () => {
    const rounds = 10;
    let bystanderFailures = 0;
    let poisonAnswers: string[] = [];
    for (let round = 0; round < rounds; round++) {
      const poison = ingestor.ingest('poison', [record(`fresh.${round}`, 1), record('bad\ud800name', 2)], Date.now());
      const others = ['bystander-a', 'bystander-b'].map((ws) => ingestor.ingest(ws, [record(`ok.${round}`, 1), record('ok.shared', 2)], Date.now()));
      const [p, ...o] = await Promise.allSettled([poison, ...others]);
      bystanderFailures += o.filter((r) => r.status === 'rejected').length;
      poisonAnswers.push(p.status === 'rejected' && p.reason instanceof AppError ? `${p.reason.kind}:${p.reason.code}` : p.status);
    }
    poisonAnswers = [...new Set(poisonAnswers)];
    const stored = {
      bystanderFailures,
      bystanderA: await storedLogCount(stores.clickhouse, 'bystander-a'),
      bystanderB: await storedLogCount(stores.clickhouse, 'bystander-b'),
      poison: await storedLogCount(stores.clickhouse, 'poison'),
      poisonAnswers,
    };
    expect(stored).to.deep.equal({
      bystanderFailures: 0,
      bystanderA: 2 * rounds,
      bystanderB: 2 * rounds,
      poison: 0,
      poisonAnswers: ['invalid:records_refused'],
    });
  });

  it('leaves no event definition behind for the refused batch, and keeps those others use', async () => {
    expect(await definitions('poison')).to.deep.equal([]);
    expect(await definitions('bystander-a')).to.have.length(11);
  });

  it('creates the withdrawn pair afresh when a later batch uses it', async () => {
    await ingestor.ingest('poison', [record('fresh.0', 5)], Date.now());
    expect(await definitions('poison')).to.deep.equal(['fresh.0']);
    expect(await storedLogCount(stores.clickhouse, 'poison')).to.equal(1);
  });
});
