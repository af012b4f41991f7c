import { expect } from 'chai';
import { capturingLogger } from '../../helpers/logCapture.js';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const SECRET_AUTH = 'Bearer sinkSecretAuthorizationValue';
const BOT_TOKEN = '4242:telegramBotSecretToken';

describe('test send and delivery history', function () {
  this.timeout(60_000);
  let svc: TestService;
  let sink: FakeHttpServer;
  let telegram: FakeHttpServer;
  let token: string;
  const { logger, lines } = capturingLogger();

  before(async () => {
    sink = await FakeHttpServer.start();
    telegram = await FakeHttpServer.start({ status: 200, body: { ok: true, result: {} } });
    svc = await startTestService({ env: { ALLOW_PRIVATE_TARGETS: '1', TELEGRAM_API_ORIGIN: telegram.origin, ROLE: 'api' }, logger });
    token = await svc.tokenFor('test-send-ws');
  });
  after(async () => {
    await svc.close();
    await sink.close();
    await telegram.close();
  });

  const createWebhook = async (extra: object = {}) => {
    const res = await svc.request('POST', '/v1.0/destinations', {
      token,
      body: { channel: 'webhook', url: `${sink.origin}/hook`, credentials: { authorization: SECRET_AUTH }, ...extra },
    });
    expect(res.status).to.equal(201);
    return res.body.destination_id as string;
  };
  const testSend = (id: string) => svc.request('POST', `/v1.0/destinations/${id}/test`, { token });
  const history = (alertId: string, query = '') => svc.request('GET', `/v1.0/alerts/${alertId}/deliveries${query}`, { token });

  it('answers 200 sent, records a delivered test attempt, and hides it from the default history', async () => {
    const id = await createWebhook();
    const res = await testSend(id);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ destination_id: id, status: 'sent' });
    const [request] = await sink.waitForRequests(1);
    expect(request!.json).to.deep.include({ type: 'test' });
    expect(request!.json.alert.alert_id).to.equal(res.body.alert_id);
    expect(request!.headers.authorization).to.equal(SECRET_AUTH);
    expect(request!.headers['idempotency-key']).to.equal(res.body.alert_id);

    const tests = await history(res.body.alert_id, '?kind=test');
    expect(tests.status).to.equal(200);
    expect(tests.body).to.have.length(1);
    expect(tests.body[0]).to.include({
      alert_id: res.body.alert_id,
      destination_id: id,
      channel: 'webhook',
      target: `${sink.origin}/hook`,
      status: 'delivered',
      response_status: 200,
      error_message: null,
      kind: 'test',
      attempt: 1,
    });
    expect((await history(res.body.alert_id)).body).to.deep.equal([]);
    expect((await history(res.body.alert_id, '?kind=all')).body).to.have.length(1);
    expect((await history(res.body.alert_id, '?kind=other')).status).to.equal(400);
    const destination = await svc.request('GET', `/v1.0/destinations/${id}`, { token });
    expect(destination.body.last_delivered_at).to.be.a('string');
    expect(destination.body.last_error).to.equal(null);
  });

  it('answers 502 with the provider status and answer, plus alert_id and destination_id, and records it', async () => {
    const id = await createWebhook();
    sink.answerNext({ status: 400, body: `bad request, you sent ${SECRET_AUTH}` });
    const res = await testSend(id);
    expect(res.status).to.equal(502);
    expect(res.body.error.code).to.equal('delivery_failed');
    expect(res.body.destination_id).to.equal(id);
    const details = Object.fromEntries(res.body.error.details.map((d: { path: string; message: string }) => [d.path, d.message]));
    expect(details['/provider/status']).to.equal('400');
    expect(details['/provider/answer']).to.contain('bad request, you sent Bear…');
    const [attempt] = (await history(res.body.alert_id, '?kind=test')).body;
    expect(attempt).to.include({ status: 'exhausted', response_status: 400, kind: 'test', next_attempt_at: null });
    expect(attempt.error_message).to.contain('rejected');
    const destination = await svc.request('GET', `/v1.0/destinations/${id}`, { token });
    expect(destination.body.last_error).to.contain('400');
    // A test is never retried.
    expect(await svc.stores.postgres.query("SELECT 1 FROM delivery_attempts WHERE status = 'pending'")).to.have.length(0);
  });

  it('answers 502 for an unreachable provider, 404 for an unknown destination, and tests a disabled one', async () => {
    const unreachable = await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: 'http://127.0.0.1:9/closed' } });
    const res = await testSend(unreachable.body.destination_id);
    expect(res.status).to.equal(502);
    const [attempt] = (await history(res.body.alert_id, '?kind=test')).body;
    expect(attempt).to.include({ status: 'exhausted', response_status: null });
    expect(attempt.error_message).to.match(/^network_error/);

    expect((await testSend('0196f7a0-3c1e-7000-8000-000000000001')).status).to.equal(404);
    expect((await history('0196f7a0-3c1e-7000-8000-000000000001')).status).to.equal(404);
    const disabled = await createWebhook({ enabled: false });
    expect((await testSend(disabled)).status).to.equal(200);
  });

  it('never shows or logs a full secret, also after a read-back PUT and a failed send', async () => {
    const created = await svc.request('POST', '/v1.0/destinations', {
      token,
      body: { channel: 'telegram', credentials: { bot_token: BOT_TOKEN, chat_id: 7 } },
    });
    const id = created.body.destination_id;
    const readBack = (await svc.request('GET', `/v1.0/destinations/${id}`, { token })).body;
    const bodies: string[] = [JSON.stringify(created.body), JSON.stringify(readBack)];
    bodies.push((await svc.request('PUT', `/v1.0/destinations/${id}`, { token, body: readBack })).text);
    const ok = await testSend(id);
    expect(ok.status).to.equal(200);
    const [request] = telegram.requests;
    expect(request!.path).to.equal(`/bot${BOT_TOKEN}/sendMessage`);
    telegram.answerNext({ status: 401, body: { ok: false, error_code: 401, description: `Unauthorized token ${BOT_TOKEN}` } });
    const refused = await testSend(id);
    expect(refused.status).to.equal(502);
    bodies.push(ok.text, refused.text);
    for (const alertId of [ok.body.alert_id, refused.body.alert_id]) bodies.push((await history(alertId, '?kind=test')).text);
    bodies.push((await svc.request('GET', '/v1.0/destinations', { token })).text);
    const all = [...bodies, ...lines].join('\n');
    expect(all).to.contain('4242…');
    for (const secret of [BOT_TOKEN, 'telegramBotSecretToken', SECRET_AUTH, 'sinkSecretAuthorizationValue']) expect(all).not.to.contain(secret);
    expect(lines.some((l) => l.includes('"delivery failed"'))).to.equal(true);
  });
});
