// Evaluation driven by data: a completed insert evaluates the enabled policies of the events
// it touched at once. The periodic cycle is set to a day here, so only the data path can
// raise anything.
import { expect } from 'chai';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';
import { createEvent, createPolicy } from './helpers.js';

const NO_CYCLE = { EVAL_INTERVAL_MS: '86400000' };

async function metric(svc: TestService, name: string): Promise<number> {
  const text = (await svc.request('GET', '/metrics')).text;
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
}

describe('evaluation driven by inserted records', function () {
  this.timeout(240_000);

  describe('a breaching record', () => {
    let svc: TestService;
    let sink: FakeHttpServer;
    let token: string;
    before(async () => {
      sink = await FakeHttpServer.start();
      svc = await startTestService({ env: { ...NO_CYCLE, ALLOW_PRIVATE_TARGETS: '1' } });
      token = await svc.tokenFor('signal-ws');
    });
    after(async () => {
      await svc.close();
      await sink.close();
    });

    it('raises its alert and reaches the webhook without waiting for the cycle', async () => {
      const eventId = await createEvent(svc, token, 'queue.depth_items', 'UTC', 'worker-1');
      const policyId = await createPolicy(svc, token, { event_id: eventId, aggregate: 'max', condition: 'gt', threshold: 100 });
      expect((await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: `${sink.origin}/hook` } })).status).to.equal(201);
      const quiet = await svc.request('POST', '/v1.0/logs', { token, body: [{ agent: 'worker-1', event: 'queue.depth_items', value: 50 }] });
      expect(quiet.status).to.equal(200);
      const sent = await svc.request('POST', '/v1.0/logs', { token, body: [{ agent: 'worker-1', event: 'queue.depth_items', value: 250 }] });
      expect(sent.status).to.equal(200);
      const [hook] = await sink.waitForRequests(1, 30_000);
      expect(hook!.json).to.deep.include({ type: 'alert.triggered' });
      expect(hook!.json.alert).to.include({ policy_id: policyId, status: 'triggered', value: 250 });
      expect(await metric(svc, 'alertmon_evaluation_cycle_policies')).to.equal(0);
      // A run is counted when it returns, which can be after its alert went out.
      await waitFor('the run counted', async () => ((await metric(svc, 'alertmon_evaluation_signal_runs_total')) >= 1 ? true : null), 10_000);
    });
  });

  describe('an insert that touches 1,000 events', () => {
    let svc: TestService;
    let token: string;
    const ws = 'signal-bulk-ws';
    before(async () => {
      // No grace: an open bucket is never in its grace time, so nothing is evaluated a second time by design.
      svc = await startTestService({ env: { ...NO_CYCLE, EVAL_GRACE_MS: '0', INGEST_MAX_BATCH_RECORDS: '2000' } });
      token = await svc.tokenFor(ws);
    });
    after(() => svc.close());

    it('evaluates each affected policy once', async () => {
      const events = Array.from({ length: 1000 }, (_, i) => `bulk.e${i}`);
      for (let i = 0; i < events.length; i += 25) {
        await Promise.all(
          events.slice(i, i + 25).map(async (event) => {
            const eventId = await createEvent(svc, token, event, 'UTC', 'bulk');
            await createPolicy(svc, token, { event_id: eventId, aggregate: 'max', condition: 'gt', threshold: 100 });
          }),
        );
      }
      // An event of the workspace without a policy, and a policy of an event the insert does not touch.
      await createEvent(svc, token, 'bulk.unwatched', 'UTC', 'bulk');
      await createPolicy(svc, token, {
        event_id: await createEvent(svc, token, 'bulk.silent', 'UTC', 'bulk'),
        aggregate: 'max',
        condition: 'gt',
        threshold: 100,
      });
      const before = await metric(svc, 'alertmon_evaluation_signal_policies_total');
      const runsBefore = await metric(svc, 'alertmon_evaluation_signal_runs_total');
      const batch = [...events, 'bulk.unwatched'].map((event) => ({ agent: 'bulk', event, value: 500 }));
      expect((await svc.request('POST', '/v1.0/logs', { token, body: batch })).status).to.equal(200);
      const count = async () => (await svc.stores.postgres.query<{ n: number }>('SELECT count(*)::int AS n FROM alerts WHERE workspace_id = $1', [ws]))[0]!.n;
      await waitFor('1,000 alerts', async () => ((await count()) === 1000 ? true : null), 60_000);
      // Nothing further is evaluated afterwards.
      await waitFor('the run reported', async () => ((await metric(svc, 'alertmon_evaluation_signal_runs_total')) > runsBefore ? true : null));
      expect((await metric(svc, 'alertmon_evaluation_signal_policies_total')) - before).to.equal(1000);
      expect((await metric(svc, 'alertmon_evaluation_signal_runs_total')) - runsBefore).to.equal(1);
      expect(await count()).to.equal(1000);
    });
  });
});
