// Acknowledge links: the link a webhook body carries acknowledges on POST, does nothing on
// GET, and answers the same 404 to a wrong token, another alert's token, an unknown alert
// and a closed one. Chat messages carry the same link as text.
import { expect } from 'chai';
import { newId } from '../../../src/ids.js';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { request } from '../../helpers/http.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';
import { createWebhook, ESCALATION_TEST_ENV, escalatingPolicy, raise } from './helpers.js';

describe('acknowledge links', function () {
  this.timeout(120_000);
  let svc: TestService;
  let sink: FakeHttpServer;
  let token: string;

  before(async function () {
    // Starting the service (the embedded ClickHouse first of all) can take minutes on a loaded machine.
    this.timeout(600_000);
    sink = await FakeHttpServer.start();
    svc = await startTestService({ env: { ...ESCALATION_TEST_ENV, PUBLIC_URL: 'https://alerts.example.com/' } });
    token = await svc.tokenFor('ack-links-ws');
    await createWebhook(svc, token, `${sink.origin}/hook`, 'all');
  });
  after(async () => {
    await svc.close();
    await sink.close();
  });

  /** Raises an alert and returns it with the path of the link its alert.triggered webhook carried (PUBLIC_URL stripped). */
  async function raisedWithLink() {
    const alert = await raise(svc, token, await escalatingPolicy(svc, token, null));
    const sent = await waitFor('alert.triggered at the webhook', async () =>
      sink.requests.find((r) => r.json?.type === 'alert.triggered' && r.json.alert.alert_id === alert.alert_id),
    );
    const ackUrl: string = sent.json.alert.ack_url;
    expect(ackUrl.startsWith(`https://alerts.example.com/ack/${alert.alert_id}?token=`), ackUrl).to.equal(true);
    return { alert, path: ackUrl.slice('https://alerts.example.com'.length), token: new URL(ackUrl).searchParams.get('token')! };
  }

  const statusOf = async (alertId: string) => (await svc.request('GET', `/v1.0/alerts/${alertId}`, { token })).body;
  const page = (method: string, path: string) => request(svc.url, method, path);

  it('GET shows a page with one button and changes nothing; POST acknowledges, recorded as from the notification link', async () => {
    const { alert, path } = await raisedWithLink();
    for (let i = 0; i < 3; i++) {
      const shown = await page('GET', path);
      expect(shown.status).to.equal(200);
      expect(shown.headers.get('content-type')).to.match(/^text\/html/);
      expect(shown.text).to.include('Nothing arrives').and.include('<form method="post">').and.include('Acknowledge</button>');
      expect(shown.headers.get('cache-control')).to.equal('no-store');
      expect(shown.headers.get('content-security-policy')).to.include("form-action 'self'").and.include("frame-ancestors 'none'");
      expect(shown.headers.get('referrer-policy')).to.equal('no-referrer');
    }
    expect(await statusOf(alert.alert_id)).to.include({ status: 'triggered', acknowledged_at: null });

    const pressed = await page('POST', path);
    expect(pressed.status).to.equal(200);
    expect(pressed.text).to.include('Acknowledged at');
    const after = await statusOf(alert.alert_id);
    expect(after).to.include({ status: 'acknowledged', acknowledged_via: 'notification_link' });
    expect(after.acknowledged_at).to.be.a('string');
    // The link stops working once the alert left triggered.
    expect((await page('GET', path)).status).to.equal(404);
    expect((await page('POST', path)).status).to.equal(404);
  });

  it('answers the same 404 page for a wrong token, another alert’s token, an unknown alert, a malformed id and a closed alert', async () => {
    const one = await raisedWithLink();
    const other = await raisedWithLink();
    const refusals = [
      `/ack/${one.alert.alert_id}?token=${'A'.repeat(32)}`,
      `/ack/${one.alert.alert_id}?token=${other.token}`,
      `/ack/${one.alert.alert_id}`,
      `/ack/${one.alert.alert_id}?token=`,
      `/ack/${newId()}?token=${one.token}`,
      `/ack/not-a-uuid?token=${one.token}`,
      `/ack/${one.alert.alert_id}?token=${'x'.repeat(5000)}`,
    ];
    const bodies = new Set<string>();
    for (const path of refusals) {
      for (const method of ['GET', 'POST']) {
        const res = await page(method, path);
        expect(res.status, `${method} ${path.slice(0, 80)}`).to.equal(404);
        bodies.add(res.text);
      }
    }
    // A closed alert's own link: resolved through the API, then the same page.
    expect((await svc.request('POST', `/v1.0/alerts/${other.alert.alert_id}/resolve`, { token })).status).to.equal(200);
    for (const method of ['GET', 'POST']) {
      const res = await page(method, other.path);
      expect(res.status).to.equal(404);
      bodies.add(res.text);
    }
    expect(bodies.size).to.equal(1);
    // Nothing changed: the first alert is still triggered.
    expect(await statusOf(one.alert.alert_id)).to.include({ status: 'triggered' });
  });

  it('acknowledges with no other method: 405 with Allow, as every route; HEAD answers as GET and changes nothing', async () => {
    const { alert, path } = await raisedWithLink();
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const res = await page(method, path);
      expect(res.status, method).to.equal(405);
      expect(res.headers.get('allow'), method).to.equal('GET, HEAD, POST');
    }
    const head = await page('HEAD', path);
    expect(head.status).to.equal(200);
    expect(head.headers.get('content-type')).to.match(/^text\/html/);
    expect(head.text).to.equal('');
    expect((await page('HEAD', `/ack/${alert.alert_id}?token=${'A'.repeat(32)}`)).status).to.equal(404);
    expect(await statusOf(alert.alert_id)).to.include({ status: 'triggered', acknowledged_at: null });
  });

  it('is not in alert.resolved notifications', async () => {
    const { alert } = await raisedWithLink();
    expect((await svc.request('POST', `/v1.0/alerts/${alert.alert_id}/resolve`, { token })).status).to.equal(200);
    const resolved = await waitFor('alert.resolved at the webhook', async () =>
      sink.requests.find((r) => r.json?.type === 'alert.resolved' && r.json.alert.alert_id === alert.alert_id),
    );
    expect(resolved.json.alert.ack_url).to.equal(null);
  });

  it('stores only a hash of each token', async () => {
    const { alert, token: linkToken } = await raisedWithLink();
    const rows = await svc.stores.postgres.query<{ token_hash: Uint8Array }>('SELECT token_hash FROM alert_ack_tokens WHERE alert_id = $1', [alert.alert_id]);
    expect(rows).to.have.length(1);
    expect(Buffer.from(rows[0]!.token_hash).toString('base64url')).to.not.equal(linkToken);
    expect(rows[0]!.token_hash.length).to.equal(32);
  });
});
