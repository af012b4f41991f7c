// renotify_minutes: alert.reminder notifications while an alert stays triggered, through the
// outbox and the delivery path like any other notification, timed from Postgres timestamps.
import { expect } from 'chai';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';
import { alertsOf, baseMinute, createEvent, createPolicy, evaluatorAt, GRACE_MS, IDLE_WORKER_ENV, MINUTE, outboxOf } from './helpers.js';

describe('reminders (renotify_minutes)', function () {
  this.timeout(120_000);
  let svc: TestService;
  let sink: FakeHttpServer;
  let token: string;
  let n = 0;
  const t0 = baseMinute();

  before(async () => {
    sink = await FakeHttpServer.start();
    svc = await startTestService({ env: { ...IDLE_WORKER_ENV, ALLOW_PRIVATE_TARGETS: '1', DELIVERY_POLL_INTERVAL_MS: '50' } });
    token = await svc.tokenFor('reminders-ws');
  });
  after(async () => {
    await svc.close();
    await sink.close();
  });

  /** A policy that breaches at once (an event with no logs, count lt 1), raised at `raisedAt` by a worker on a test clock. */
  async function raisedAlert(renotifyMinutes: number) {
    n += 1;
    const eventId = await createEvent(svc, token, `silent-${n}`);
    const policyId = await createPolicy(svc, token, {
      event_id: eventId,
      aggregate: 'count',
      condition: 'lt',
      threshold: 1,
      renotify_minutes: renotifyMinutes,
    });
    const clock = { now: t0 + MINUTE + GRACE_MS + 1 };
    const evaluator = evaluatorAt(svc.stores, clock);
    await evaluator.evaluateDuePolicies();
    const [alert] = await alertsOf(svc, token, policyId);
    expect(alert).to.include({ status: 'triggered' });
    const types = async () => (await outboxOf(svc.stores, policyId)).map((o) => o.type);
    /** Moves the clock to `msAfterRaise` and runs a cycle. */
    const cycleAt = async (msAfterRaise: number) => {
      clock.now = t0 + MINUTE + GRACE_MS + 1 + msAfterRaise;
      await evaluator.evaluateDuePolicies();
    };
    return { policyId, alert: alert!, types, cycleAt };
  }

  it('reminds at the interval, counted from the last notification without drifting, and stops once acknowledged', async () => {
    const { alert, types, cycleAt } = await raisedAlert(2);
    await cycleAt(60_000);
    expect(await types()).to.deep.equal(['alert.triggered']);
    await cycleAt(2 * MINUTE - 1);
    expect(await types()).to.deep.equal(['alert.triggered']);
    await cycleAt(2 * MINUTE);
    expect(await types()).to.deep.equal(['alert.triggered', 'alert.reminder']);
    await cycleAt(2 * MINUTE + 15_000);
    // A cycle 5 s late sends the next one late, but the one after is due on the interval again.
    await cycleAt(4 * MINUTE + 5_000);
    await cycleAt(6 * MINUTE - 1);
    expect(await types()).to.deep.equal(['alert.triggered', 'alert.reminder', 'alert.reminder']);
    await cycleAt(6 * MINUTE);
    expect(await types()).to.deep.equal(['alert.triggered', 'alert.reminder', 'alert.reminder', 'alert.reminder']);

    expect((await svc.request('POST', `/v1.0/alerts/${alert.alert_id}/acknowledge`, { token })).status).to.equal(200);
    await cycleAt(20 * MINUTE);
    expect(await types()).to.have.length(4);
  });

  it('stops once resolved, and sends at most one reminder after a pause of the workers', async () => {
    const { alert, types, cycleAt } = await raisedAlert(1);
    await cycleAt(10 * MINUTE + 30_000);
    expect(await types()).to.deep.equal(['alert.triggered', 'alert.reminder']);
    await cycleAt(11 * MINUTE);
    expect(await types()).to.deep.equal(['alert.triggered', 'alert.reminder', 'alert.reminder']);
    expect((await svc.request('POST', `/v1.0/alerts/${alert.alert_id}/resolve`, { token })).status).to.equal(200);
    await cycleAt(30 * MINUTE);
    expect((await types()).filter((t) => t === 'alert.reminder')).to.have.length(2);
  });

  it('goes through the delivery path: sent to the destinations and shown in the history', async () => {
    const destination = await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: `${sink.origin}/hook` } });
    expect(destination.status, destination.text).to.equal(201);
    const { alert, cycleAt } = await raisedAlert(5);
    // Recording the first page's delivery holds the alert's row for a moment, and a cycle
    // skips a locked alert (the next cycle reminds): wait until it is recorded.
    await waitFor('alert.triggered delivered', async () => {
      const res = await svc.request('GET', `/v1.0/alerts/${alert.alert_id}/deliveries`, { token });
      return res.body.find((d: { type: string; status: string }) => d.type === 'alert.triggered' && d.status === 'delivered');
    });
    await cycleAt(5 * MINUTE);
    const reminder = await waitFor('reminder sent', async () =>
      sink.requests.find((r) => r.json?.type === 'alert.reminder' && r.json.alert.alert_id === alert.alert_id),
    );
    expect(reminder.json.alert).to.include({ alert_id: alert.alert_id, status: 'triggered' });
    const history = await waitFor('delivered reminder in the history', async () => {
      const res = await svc.request('GET', `/v1.0/alerts/${alert.alert_id}/deliveries`, { token });
      return res.body.find((d: { type: string; status: string }) => d.type === 'alert.reminder' && d.status === 'delivered');
    });
    expect(history).to.include({ kind: 'alert', channel: 'webhook' });
  });
});
