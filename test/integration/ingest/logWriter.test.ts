import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { EventDirectory } from '../../../src/events/eventDirectory.js';
import { LogWriter, queuedRow, type QueuedLogRow } from '../../../src/ingest/logWriter.js';
import { createLogger } from '../../../src/logger.js';
import { createMetrics } from '../../../src/metrics.js';
import { openStores, type Stores } from '../../../src/stores/index.js';
import { queryRows } from '../../helpers/logs.js';
import { freshStoreOptions } from '../../helpers/stores.js';

describe('log writer with concurrent inserts', function () {
  this.timeout(60_000);
  let stores: Stores;
  before(async () => {
    stores = await openStores(await freshStoreOptions());
  });
  after(() => stores.close());

  const eventId = randomUUID();
  const row = (logId: string, value: number): QueuedLogRow =>
    queuedRow('writer-ws', eventId, { logId, clientLogId: true, agent: 'w', event: 'e', value, occurredAt: Date.now(), meta: '' }, new Date().toISOString());

  const storedValues = async () =>
    (await queryRows<{ value: number }>(stores.clickhouse, "SELECT value FROM logs WHERE workspace_id = 'writer-ws' ORDER BY value")).map((r) => r.value);

  it('stores a record itself when the running insert that held its id fails', async () => {
    const writer = new LogWriter(stores.clickhouse, new EventDirectory(stores.postgres), createMetrics(), 1_000_000, createLogger('silent'));
    const shared = randomUUID();
    // The first insert fails in ClickHouse: its other row names an event id that is no UUID.
    const valid = row(randomUUID(), 99);
    const broken = { ...valid, head: valid.head.replace(eventId, 'not-a-uuid') };
    const first = writer.write([[row(shared, 1), broken]]);
    const second = writer.write([[row(shared, 1), row(randomUUID(), 2)]]);
    const [a, b] = await Promise.allSettled([first, second]);
    expect(a.status).to.equal('rejected');
    expect(b.status).to.equal('fulfilled');
    expect(await storedValues()).to.deep.equal([1, 2]);
    // A retry of the first batch's good record is now recognised.
    await writer.write([[row(shared, 1)]]);
    expect(await storedValues()).to.deep.equal([1, 2]);
  });

  it('stores each id once, without waiting in a circle, when a failed insert is followed by two that share its ids', async () => {
    const writer = new LogWriter(stores.clickhouse, new EventDirectory(stores.postgres), createMetrics(), 1_000_000, createLogger('silent'));
    const [x, z] = [randomUUID(), randomUUID()];
    const valid = row(randomUUID(), 99);
    const failing = writer.write([[row(z, 30), { ...valid, head: valid.head.replace(eventId, 'not-a-uuid') }]]);
    const a = writer.write([[row(x, 20), row(z, 30)]]);
    const c = writer.write([[row(x, 20), row(z, 30)]]);
    const results = await Promise.allSettled([failing, a, c]);
    expect(results.map((r) => r.status)).to.deep.equal(['rejected', 'fulfilled', 'fulfilled']);
    const values = await storedValues();
    expect(values.filter((v) => v === 20)).to.have.length(1);
    expect(values.filter((v) => v === 30)).to.have.length(1);
  });

  it('counts a record once when two running inserts carry its id', async () => {
    const writer = new LogWriter(stores.clickhouse, new EventDirectory(stores.postgres), createMetrics(), 1_000_000, createLogger('silent'));
    const shared = randomUUID();
    const before = (await storedValues()).length;
    await Promise.all([writer.write([[row(shared, 10)]]), writer.write([[row(shared, 10)]])]);
    expect((await storedValues()).length).to.equal(before + 1);
  });
});
