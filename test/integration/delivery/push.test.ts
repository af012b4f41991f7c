// Delivery pushed, not polled: a committed outbox row wakes the delivery worker at once, in
// the same process and (Postgres server) in another one through LISTEN/NOTIFY. The poll
// interval is set to minutes, so only the signal can deliver within the test's wait.
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { openStores, type Stores } from '../../../src/stores/index.js';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { seedOutboxBurst } from '../../helpers/outboxBurst.js';
import { raiseAlert, seedPolicy } from '../../helpers/outbox.js';
import { startServiceProcess, type ServiceProcess } from '../../../scripts/lib/serviceProcess.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { freshStoreOptions, testRoot } from '../../helpers/stores.js';

const MINUTES = String(10 * 60_000);
/** Far below the poll interval: a delivery within this came from the signal. */
const WITHIN_MS = 15_000;

describe('delivery woken by a committed outbox row', function () {
  this.timeout(120_000);
  let sink: FakeHttpServer;

  before(async () => {
    sink = await FakeHttpServer.start();
  });
  after(async () => {
    await sink.close();
  });

  describe('in the same process', () => {
    let svc: TestService;
    before(async () => {
      svc = await startTestService({ env: { ALLOW_PRIVATE_TARGETS: '1', DELIVERY_POLL_INTERVAL_MS: MINUTES, EVAL_INTERVAL_MS: '86400000' } });
      // The worker's first round has run and it sleeps for the poll interval.
      await new Promise((r) => setTimeout(r, 500));
    });
    after(async () => {
      await svc.close();
    });

    it('delivers a new alert notification without waiting for the poll', async () => {
      const token = await svc.tokenFor('push-ws');
      const created = await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: `${sink.origin}/push-same` } });
      expect(created.status, created.text).to.equal(201);
      const policy = await seedPolicy(svc.stores.postgres, 'push-ws');
      const { notificationId } = await svc.stores.postgres.transaction((tx) => raiseAlert(tx, 'push-ws', policy));
      const [request] = await sink.waitForRequests(1, WITHIN_MS);
      expect(request!.path).to.equal('/push-same');
      expect(request!.headers['webhook-id']).to.equal(notificationId);
    });

    it('delivers every row of a burst written in one transaction', async () => {
      const before = sink.requests.length;
      const ids = await svc.stores.postgres.transaction((tx) => seedOutboxBurst(tx, 'push-burst-ws', `${sink.origin}/push-burst`, 50));
      await sink.waitForRequests(before + 50, WITHIN_MS * 2);
      const received = sink.requests.filter((r) => r.path === '/push-burst').map((r) => r.headers['webhook-id']);
      expect(new Set(received)).to.deep.equal(new Set(ids));
      expect(received).to.have.length(50);
    });
  });

  describe('in another process (Postgres server)', () => {
    let stores: Stores;
    let worker: ServiceProcess | null = null;

    before(async function () {
      const options = await freshStoreOptions();
      if (options.postgres.mode !== 'server') this.skip(); // LISTEN/NOTIFY across processes needs a server
      stores = await openStores(options);
      const url = options.postgres.mode === 'server' ? options.postgres.url : '';
      worker = await startServiceProcess({
        env: {
          ROLE: 'worker',
          DATA_DIR: mkdtempSync(path.join(testRoot, 'push-worker-')),
          DATABASE_URL: url,
          ALLOW_PRIVATE_TARGETS: '1',
          DELIVERY_POLL_INTERVAL_MS: MINUTES,
          EVAL_INTERVAL_MS: '86400000',
        },
      });
      await new Promise((r) => setTimeout(r, 1_000));
    });
    after(async () => {
      await worker?.stop();
      await stores?.close();
    });

    it('a worker process is woken by an outbox row committed here', async () => {
      const before = sink.requests.length;
      const ids = await stores.postgres.transaction((tx) => seedOutboxBurst(tx, 'push-other-ws', `${sink.origin}/push-other`, 3));
      await sink.waitForRequests(before + 3, WITHIN_MS);
      const received = sink.requests.filter((r) => r.path === '/push-other').map((r) => r.headers['webhook-id']);
      expect(new Set(received)).to.deep.equal(new Set(ids));
    });
  });
});
