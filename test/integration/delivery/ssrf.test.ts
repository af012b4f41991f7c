// Webhook targets on non-public addresses are refused at send time, after DNS resolution,
// unless ALLOW_PRIVATE_TARGETS=1; redirects are never followed.
import { expect } from 'chai';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { raiseAlert, seedPolicy } from '../../helpers/outbox.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

describe('SSRF guard on webhook sends', function () {
  this.timeout(60_000);
  let svc: TestService;
  let sink: FakeHttpServer;
  let token: string;
  let port: string;

  before(async () => {
    sink = await FakeHttpServer.start();
    port = new URL(sink.origin).port;
    svc = await startTestService({ env: { DELIVERY_POLL_INTERVAL_MS: '50', DELIVERY_RETRY_SCHEDULE_MS: '100,100,100,100,100' } });
    token = await svc.tokenFor('ssrf-ws');
  });
  after(async () => {
    await svc.close();
    await sink.close();
  });

  const testSendTo = async (url: string) => {
    const created = await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url } });
    expect(created.status, url).to.equal(201);
    return svc.request('POST', `/v1.0/destinations/${created.body.destination_id}/test`, { token });
  };

  it('refuses loopback targets by literal and by name, in IPv4, IPv6 and IPv4-mapped form', async () => {
    for (const host of ['127.0.0.1', 'localhost', '[::1]', '[::ffff:127.0.0.1]', '2130706433']) {
      const res = await testSendTo(`http://${host}:${port}/hook`);
      expect(res.status, host).to.equal(502);
      const detail = res.body.error.details.find((d: { path: string }) => d.path === '/provider/error');
      expect(detail.message, host).to.match(/^blocked_target: refused: target .* non-public address/);
    }
    expect(sink.requests).to.have.length(0);
  });

  it('refuses the metadata and private addresses without connecting', async () => {
    for (const host of ['169.254.169.254', '10.0.0.1', '192.168.0.1', '100.64.0.1', '[fd00:ec2::254]', '[fe80::1]']) {
      const res = await testSendTo(`http://${host}/latest/meta-data/`);
      expect(res.status, host).to.equal(502);
      expect(JSON.stringify(res.body.error.details), host).to.contain('blocked_target');
    }
  });

  it('gives up on a blocked target of a real alert without retrying', async () => {
    const ws = 'ssrf-alert-ws';
    const token = await svc.tokenFor(ws);
    await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: `http://localhost:${port}/alert` } });
    const policy = await seedPolicy(svc.stores.postgres, ws);
    const { alertId } = await raiseAlert(svc.stores.postgres, ws, policy);
    const attempts = await waitFor('the exhausted attempt', async () => {
      const res = await svc.request('GET', `/v1.0/alerts/${alertId}/deliveries`, { token });
      return res.body.some((a: { status: string }) => a.status === 'exhausted') ? res.body : null;
    });
    expect(attempts).to.have.length(1);
    expect(sink.requests).to.have.length(0);
  });
});

describe('webhook redirects', function () {
  this.timeout(60_000);

  it('are not followed, even where private targets are allowed', async () => {
    const sink = await FakeHttpServer.start();
    const svc = await startTestService({ env: { ALLOW_PRIVATE_TARGETS: '1', ROLE: 'api' } });
    try {
      const token = await svc.tokenFor('redirect-ws');
      sink.answerNext({ status: 302, headers: { Location: `${sink.origin}/elsewhere` } });
      const created = await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: `${sink.origin}/hook` } });
      const res = await svc.request('POST', `/v1.0/destinations/${created.body.destination_id}/test`, { token });
      expect(res.status).to.equal(502);
      await new Promise((r) => setTimeout(r, 300));
      expect(sink.requests.map((r) => r.path)).to.deep.equal(['/hook']);
      const [attempt] = (await svc.request('GET', `/v1.0/alerts/${res.body.alert_id}/deliveries?kind=test`, { token })).body;
      expect(attempt).to.include({ status: 'exhausted', response_status: 302 });
    } finally {
      await svc.close();
      await sink.close();
    }
  });
});
