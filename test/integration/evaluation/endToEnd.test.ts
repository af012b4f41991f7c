// From a policy's breach to a webhook, through the real worker tasks (ROLE=all): the
// evaluation worker writes the outbox, the delivery worker sends it.
import { expect } from 'chai';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';
import { createEvent, createPolicy } from './helpers.js';

describe('evaluation to delivery', function () {
  this.timeout(60_000);
  let svc: TestService;
  let sink: FakeHttpServer;

  before(async () => {
    sink = await FakeHttpServer.start();
    svc = await startTestService({
      env: { ROLE: 'all', EVAL_INTERVAL_MS: '200', EVAL_GRACE_MS: '0', ALLOW_PRIVATE_TARGETS: '1', DELIVERY_POLL_INTERVAL_MS: '50' },
    });
  });
  after(async () => {
    await svc.close();
    await sink.close();
  });

  it('sends alert.triggered when a policy breaches and alert.resolved when a person resolves it', async () => {
    const token = await svc.tokenFor('e2e-ws');
    const destination = await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: `${sink.origin}/hook` } });
    expect(destination.status, destination.text).to.equal(201);
    const eventId = await createEvent(svc, token, 'silence');
    // No logs: the last closed minute counts 0, which breaches at the worker's next cycle.
    const policyId = await createPolicy(svc, token, { event_id: eventId, aggregate: 'count', condition: 'lt', threshold: 1, title: 'Agent silent' });

    const [triggered] = await sink.waitForRequests(1);
    expect(triggered!.json.type).to.equal('alert.triggered');
    expect(triggered!.json.alert).to.include({ policy_id: policyId, status: 'triggered', title: 'Agent silent', value: 0, alerted_at: null });
    const alertId = triggered!.json.alert.alert_id as string;
    const delivered = await waitFor('alerted_at', async () => {
      const res = await svc.request('GET', `/v1.0/alerts/${alertId}`, { token });
      return res.body.alerted_at === null ? null : res.body;
    });
    // The webhook's alert is the API's, with the acknowledge link beside (docs/api.md, acknowledging from the message).
    const { ack_url: ackUrl, ...sentAlert } = triggered!.json.alert;
    expect(ackUrl).to.match(new RegExp(`/ack/${alertId}\\?token=[A-Za-z0-9_-]{32,}$`));
    expect({ ...delivered, alerted_at: null }).to.deep.equal(sentAlert);

    const resolved = await svc.request('POST', `/v1.0/alerts/${alertId}/resolve`, { token });
    expect(resolved.status).to.equal(200);
    // Should a minute end meanwhile, the next empty minute raises a new alert: look for the resolve.
    const resolvedSend = await waitFor('alert.resolved', async () => sink.requests.find((r) => r.json?.type === 'alert.resolved'));
    // A resolved notification carries no acknowledge link.
    expect(resolvedSend.json.alert).to.deep.equal({ ...resolved.body, ack_url: null });
  });
});
