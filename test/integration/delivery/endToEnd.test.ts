// Through the public API only, as a user would: a log breaches a policy, the evaluation
// worker raises an alert, the delivery worker sends it to a webhook; resolving the alert
// sends the resolved notification; the history and alerted_at (the first delivery's time) show it.
import { expect } from 'chai';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

describe('log → alert → webhook', function () {
  this.timeout(90_000);
  let svc: TestService;
  let sink: FakeHttpServer;
  let token: string;

  before(async () => {
    sink = await FakeHttpServer.start();
    svc = await startTestService({ env: { ALLOW_PRIVATE_TARGETS: '1', EVAL_INTERVAL_MS: '200', DELIVERY_POLL_INTERVAL_MS: '50' } });
    token = await svc.tokenFor('e2e-ws');
  });
  after(async () => {
    await svc.close();
    await sink.close();
  });

  const api = async (method: string, path: string, body?: unknown, expected = 200) => {
    const res = await svc.request(method, path, { token, ...(body === undefined ? {} : { body }) });
    expect(res.status, `${method} ${path}: ${res.text}`).to.equal(expected);
    return res.body;
  };

  it('notifies a breach and its resolution, and records both deliveries', async () => {
    const { event_id: eventId } = await api('POST', '/v1.0/events', { event: 'queue.depth_items', agent: 'worker-7' }, 201);
    const policy = await api(
      'POST',
      '/v1.0/policies',
      { event_id: eventId, title: 'Queue too deep', period: 'minute', aggregate: 'max', condition: 'gt', threshold: 100, severity: 'error' },
      201,
    );
    const destination = await api(
      'POST',
      '/v1.0/destinations',
      { channel: 'webhook', url: `${sink.origin}/e2e`, credentials: { authorization: 'Token e2e' } },
      201,
    );
    await api('POST', '/v1.0/logs', [{ agent: 'worker-7', event: 'queue.depth_items', value: 250 }]);

    const [triggered] = await sink.waitForRequests(1, 30_000);
    expect(triggered!.json.type).to.equal('alert.triggered');
    expect(triggered!.headers.authorization).to.equal('Token e2e');
    const alertId: string = triggered!.json.alert.alert_id;
    expect(triggered!.json.alert).to.include({
      policy_id: policy.policy_id,
      title: 'Queue too deep',
      agent: 'worker-7',
      event: 'queue.depth_items',
      status: 'triggered',
      value: 250,
    });

    const alert = await waitFor('alerted_at', async () => {
      const body = await api('GET', `/v1.0/alerts/${alertId}`);
      return body.alerted_at ? body : null;
    });
    expect(Date.parse(alert.alerted_at)).to.be.at.least(Date.parse(alert.triggered_at));

    await api('POST', `/v1.0/alerts/${alertId}/resolve`);
    const requests = await sink.waitForRequests(2, 30_000);
    expect(requests[1]!.json).to.deep.include({ type: 'alert.resolved' });
    expect(requests[1]!.json.alert).to.include({ alert_id: alertId, status: 'resolved' });

    const history = await waitFor('two delivered attempts', async () => {
      const body = await api('GET', `/v1.0/alerts/${alertId}/deliveries`);
      return body.length === 2 && body.every((a: { status: string }) => a.status === 'delivered') ? body : null;
    });
    expect(history.map((a: { type: string }) => a.type)).to.deep.equal(['alert.resolved', 'alert.triggered']);
    expect(history[0]).to.include({ destination_id: destination.destination_id, channel: 'webhook', kind: 'alert', response_status: 200 });
    expect(requests.map((r) => r.headers['idempotency-key'])).to.deep.equal(history.map((a: { notification_id: string }) => a.notification_id).reverse());
    // alerted_at is the first delivery's time: the resolution's delivery leaves it.
    expect((await api('GET', `/v1.0/alerts/${alertId}`)).alerted_at).to.equal(alert.alerted_at);
  });
});
