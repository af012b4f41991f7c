// Silences on the delivery path, with a running worker and a local webhook sink: a silenced
// notification is recorded as a silenced attempt and not sent; when the silence ends, an alert
// still open whose alert.triggered was silenced is notified once, and one resolved meanwhile
// is not; reminders are silenced too; test sends never are; another workspace's silence
// silences nothing here. Each test waits for a state in Postgres, never for a time.
import { expect } from 'chai';
import { writeDueReminders } from '../../../src/alerts/reminders.js';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { raiseAlert, resolveAlert, seedPolicy, type SeededPolicy } from '../../helpers/outbox.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

const ENV = { ALLOW_PRIVATE_TARGETS: '1', DELIVERY_POLL_INTERVAL_MS: '50', EVAL_INTERVAL_MS: '86400000' };
const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

interface Attempt {
  status: string;
  type: string;
  kind: string;
}

describe('silences on the delivery path', function () {
  this.timeout(90_000);
  let svc: TestService;
  let sink: FakeHttpServer;
  let ws: string;
  let token: string;
  let policy: SeededPolicy;
  let other: SeededPolicy;
  let n = 0;

  before(async () => {
    sink = await FakeHttpServer.start();
    svc = await startTestService({ env: ENV });
  });
  after(async () => {
    await svc.close();
    await sink.close();
  });
  beforeEach(async () => {
    ws = `silenced-ws-${++n}`;
    token = await svc.tokenFor(ws);
    policy = await seedPolicy(svc.stores.postgres, ws, 'Silenced policy');
    other = await seedPolicy(svc.stores.postgres, ws, 'Other policy');
    const res = await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: `${sink.origin}/${ws}` } });
    expect(res.status, res.text).to.equal(201);
  });

  const silence = async (body: object, as = token) => {
    const res = await svc.request('POST', '/v1.0/silences', { token: as, body: { ends_at: inHours(1), ...body } });
    expect(res.status, res.text).to.equal(201);
    return res.body.silence_id as string;
  };
  const attemptsOf = async (alertId: string): Promise<Attempt[]> => (await svc.request('GET', `/v1.0/alerts/${alertId}/deliveries?kind=all`, { token })).body;
  /** Waits until the alert's attempts include one of this status and type. */
  const attemptWith = (alertId: string, status: string, type = 'alert.triggered') =>
    waitFor(`a ${status} ${type} attempt`, async () => {
      const list = await attemptsOf(alertId);
      return list.some((a) => a.status === status && a.type === type) ? list : null;
    });
  const sentFor = (alertId: string) => sink.requests.filter((r) => r.json?.alert?.alert_id === alertId);
  const outboxTypes = async (alertId: string) =>
    (await svc.stores.postgres.query<{ type: string }>('SELECT type FROM alert_notifications WHERE alert_id = $1 ORDER BY created_at, type', [alertId])).map(
      (r) => r.type,
    );
  /** Waits until the worker has looked at the held notification after the silence ended (it is no longer held). */
  const releasedFor = (alertId: string) =>
    waitFor('the release of the held notification', async () => {
      const rows = await svc.stores.postgres.query('SELECT 1 FROM alert_notifications WHERE alert_id = $1 AND held_since IS NOT NULL', [alertId]);
      return rows.length === 0 ? true : null;
    });

  it('silences the policies it names and sends the others', async () => {
    await silence({ policy_ids: [policy.policyId] });
    const silenced = await raiseAlert(svc.stores.postgres, ws, policy);
    const sent = await raiseAlert(svc.stores.postgres, ws, other);
    await attemptWith(sent.alertId, 'delivered');
    const attempts = await attemptWith(silenced.alertId, 'silenced');
    expect(attempts).to.have.length(1);
    expect(sentFor(silenced.alertId)).to.have.length(0);
    expect(sentFor(sent.alertId)).to.have.length(1);
  });

  it('silences every policy of the workspace with policy_ids null', async () => {
    await silence({ policy_ids: null });
    const first = await raiseAlert(svc.stores.postgres, ws, policy);
    const second = await raiseAlert(svc.stores.postgres, ws, other);
    await attemptWith(first.alertId, 'silenced');
    await attemptWith(second.alertId, 'silenced');
    expect(sentFor(first.alertId)).to.have.length(0);
    expect(sentFor(second.alertId)).to.have.length(0);
  });

  it('notifies a still-open alert once when the silence ends', async () => {
    const silenceId = await silence({ policy_ids: [policy.policyId] });
    const { alertId } = await raiseAlert(svc.stores.postgres, ws, policy);
    await attemptWith(alertId, 'silenced');
    expect(sentFor(alertId)).to.have.length(0);

    expect((await svc.request('DELETE', `/v1.0/silences/${silenceId}`, { token })).status).to.equal(204);
    const attempts = await attemptWith(alertId, 'delivered');
    await releasedFor(alertId);
    expect(attempts.map((a) => [a.type, a.status])).to.deep.equal([
      ['alert.triggered', 'delivered'],
      ['alert.triggered', 'silenced'],
    ]);
    expect(sentFor(alertId).map((r) => r.json.type)).to.deep.equal(['alert.triggered']);
    expect(sentFor(alertId)[0]!.json.alert.status).to.equal('triggered');
    expect(await outboxTypes(alertId)).to.deep.equal(['alert.triggered', 'alert.triggered']);
  });

  it('notifies at the end of a silence that was shortened with PUT', async () => {
    const silenceId = await silence({ policy_ids: null });
    const { alertId } = await raiseAlert(svc.stores.postgres, ws, policy);
    await attemptWith(alertId, 'silenced');
    const put = await svc.request('PUT', `/v1.0/silences/${silenceId}`, { token, body: { ends_at: new Date(Date.now() + 1).toISOString() } });
    expect(put.status, put.text).to.equal(200);
    await attemptWith(alertId, 'delivered');
    expect(sentFor(alertId)).to.have.length(1);
  });

  it('sends nothing at the end for an alert resolved meanwhile', async () => {
    const silenceId = await silence({ policy_ids: [policy.policyId] });
    const { alertId } = await raiseAlert(svc.stores.postgres, ws, policy);
    await attemptWith(alertId, 'silenced');
    await resolveAlert(svc.stores.postgres, ws, alertId, policy);
    await attemptWith(alertId, 'silenced', 'alert.resolved');

    expect((await svc.request('DELETE', `/v1.0/silences/${silenceId}`, { token })).status).to.equal(204);
    await releasedFor(alertId);
    // The release and anything it would write happen in one transaction: nothing more comes.
    expect(await outboxTypes(alertId)).to.deep.equal(['alert.triggered', 'alert.resolved']);
    expect((await attemptsOf(alertId)).map((a) => a.status)).to.deep.equal(['silenced', 'silenced']);
    expect(sentFor(alertId)).to.have.length(0);
  });

  it('silences reminders', async () => {
    await svc.stores.postgres.query('UPDATE policies SET renotify_minutes = 1 WHERE policy_id = $1', [policy.policyId]);
    const { alertId } = await raiseAlert(svc.stores.postgres, ws, policy);
    await attemptWith(alertId, 'delivered');
    await silence({ policy_ids: [policy.policyId] });
    await svc.stores.postgres.query(`UPDATE alerts SET notified_at = now() - interval '2 minutes' WHERE alert_id = $1`, [alertId]);
    const written = await svc.stores.postgres.transaction((tx) => writeDueReminders(tx, new Date()));
    expect(written).to.be.at.least(1);
    await attemptWith(alertId, 'silenced', 'alert.reminder');
    expect(sentFor(alertId).map((r) => r.json.type)).to.deep.equal(['alert.triggered']);
  });

  it('never silences a test send', async () => {
    await silence({ policy_ids: null });
    const destinations = (await svc.request('GET', '/v1.0/destinations', { token })).body;
    const res = await svc.request('POST', `/v1.0/destinations/${destinations[0].destination_id}/test`, { token });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.status).to.equal('sent');
    expect(sentFor(res.body.alert_id).map((r) => r.json.type)).to.deep.equal(['test']);
    expect((await attemptsOf(res.body.alert_id)).map((a) => [a.kind, a.status])).to.deep.equal([['test', 'delivered']]);
  });

  it("is not silenced by another workspace's silence", async () => {
    const otherWs = `${ws}-neighbour`;
    const neighbour = await svc.tokenFor(otherWs);
    await seedPolicy(svc.stores.postgres, otherWs);
    await silence({ policy_ids: null }, neighbour);
    // Naming this workspace's policy from the other workspace is refused.
    const refused = await svc.request('POST', '/v1.0/silences', { token: neighbour, body: { ends_at: inHours(1), policy_ids: [policy.policyId] } });
    expect(refused.status).to.equal(400);
    const { alertId } = await raiseAlert(svc.stores.postgres, ws, policy);
    await attemptWith(alertId, 'delivered');
    expect((await attemptsOf(alertId)).map((a) => a.status)).to.deep.equal(['delivered']);
  });

  it('silences by matchers a policy alert whose labels (agent, event, severity…) match, and no other', async () => {
    await silence({ matchers: ['{agent="web-1", event=~"http\\..*"}', 'severity="critical"'] });
    const silenced = await raiseAlert(svc.stores.postgres, ws, policy);
    await attemptWith(silenced.alertId, 'silenced');
    expect(sentFor(silenced.alertId)).to.have.length(0);
  });

  it('does not silence a policy alert its matchers do not match', async () => {
    await silence({ matchers: ['agent="web-2"'] });
    const { alertId } = await raiseAlert(svc.stores.postgres, ws, policy);
    await attemptWith(alertId, 'delivered');
    expect((await attemptsOf(alertId)).map((a) => a.status)).to.deep.equal(['delivered']);
  });
});
