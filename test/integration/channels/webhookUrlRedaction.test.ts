// A generic webhook URL carries its token in the query string or the path: it is abbreviated
// wherever it is shown or logged, and a PUT that sends back the URL as read keeps the stored one.
import { expect } from 'chai';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { capturingLogger } from '../../helpers/logCapture.js';
import { raiseAlert, seedPolicy } from '../../helpers/outbox.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

const WS = 'webhook-url-ws';
const PATH_TOKEN = 'pathTokenAbcdefghijklmnop';
const QUERY_TOKEN = 'queryTokenZyxwvutsrq';
const SHORT_VALUE = 'k9x2b7';
const SECRETS = [PATH_TOKEN, QUERY_TOKEN, SHORT_VALUE];

describe('webhook URL redaction', function () {
  this.timeout(60_000);
  let svc: TestService;
  let sink: FakeHttpServer;
  let token: string;
  const { logger, lines } = capturingLogger();

  before(async () => {
    sink = await FakeHttpServer.start();
    svc = await startTestService({
      env: { ALLOW_PRIVATE_TARGETS: '1', DELIVERY_POLL_INTERVAL_MS: '50', DELIVERY_RETRY_SCHEDULE_MS: '100,100,100,100,100' },
      logger,
    });
    token = await svc.tokenFor(WS);
  });
  after(async () => {
    await svc.close();
    await sink.close();
  });

  const url = () => `${sink.origin}/hooks/${PATH_TOKEN}/in?token=${QUERY_TOKEN}&sig=${SHORT_VALUE}&v=1`;
  const shownUrl = () => `${sink.origin}/hooks/path…/in?token=quer…&sig=k9x2…&v=…`;
  const api = (method: string, path: string, body?: unknown) => svc.request(method, path, { token, body });

  it('abbreviates query values and long path segments in create, get, list and update responses', async () => {
    const created = await api('POST', '/v1.0/destinations', { channel: 'webhook', url: url() });
    expect(created.status).to.equal(201);
    expect(created.body.url).to.equal(shownUrl());
    const id = created.body.destination_id as string;
    const read = await api('GET', `/v1.0/destinations/${id}`);
    expect(read.body.url).to.equal(shownUrl());
    const listed = await api('GET', '/v1.0/destinations');
    expect(listed.body.find((d: { destination_id: string }) => d.destination_id === id).url).to.equal(shownUrl());

    // The SDKs PUT back the whole object they read: the stored URL stays, and still sends in full.
    const updated = await api('PUT', `/v1.0/destinations/${id}`, { ...read.body, enabled: false });
    expect(updated.status).to.equal(200);
    expect(updated.body).to.include({ url: shownUrl(), enabled: false });
    const stored = await svc.stores.postgres.query<{ url: string }>('SELECT url FROM destinations WHERE destination_id = $1', [id]);
    expect(stored[0]!.url).to.equal(url());
    const before = sink.requests.length;
    expect((await api('POST', `/v1.0/destinations/${id}/test`)).status).to.equal(200);
    expect(sink.requests[before]!.path).to.equal(`/hooks/${PATH_TOKEN}/in?token=${QUERY_TOKEN}&sig=${SHORT_VALUE}&v=1`);

    // An abbreviated URL that is not the one read is refused, never stored.
    const edited = await api('PUT', `/v1.0/destinations/${id}`, { url: `${shownUrl()}&extra=1` });
    expect(edited.status).to.equal(400);
    expect(edited.body.error.details.map((d: { path: string }) => d.path)).to.include('/url');
    const text = [created.text, read.text, listed.text, updated.text, edited.text].join('\n');
    for (const secret of SECRETS) expect(text).not.to.contain(secret);
  });

  it('shows a URL without secret parts as it is', async () => {
    const created = await api('POST', '/v1.0/destinations', { channel: 'webhook', url: `${sink.origin}/hook?v=1` });
    expect(created.body.url).to.equal(`${sink.origin}/hook?v=…`);
    const plain = await api('POST', '/v1.0/destinations', { channel: 'webhook', url: 'https://example.com' });
    expect(plain.body.url).to.equal('https://example.com');
    const shortPath = await api('POST', '/v1.0/destinations', { channel: 'webhook', url: 'https://example.com/a/hook-15-chars-x' });
    expect(shortPath.body.url).to.equal('https://example.com/a/hook-15-chars-x');
  });

  it('abbreviates the URL in attempts, their error messages, test-send errors and the service log', async () => {
    await svc.stores.postgres.query('UPDATE destinations SET enabled = false WHERE workspace_id = $1', [WS]);
    const created = await api('POST', '/v1.0/destinations', { channel: 'webhook', url: url() });
    const id = created.body.destination_id as string;
    // The receiver echoes the URL it was called at, as some do in their error pages.
    const echo = { status: 400, body: `bad request to /hooks/${PATH_TOKEN}/in?token=${QUERY_TOKEN}&sig=${SHORT_VALUE}` };
    sink.answerNext(echo);
    const refused = await api('POST', `/v1.0/destinations/${id}/test`);
    expect(refused.status).to.equal(502);
    const testHistory = await api('GET', `/v1.0/alerts/${refused.body.alert_id}/deliveries?kind=test`);
    expect(testHistory.body[0]).to.include({ target: shownUrl(), status: 'exhausted' });
    expect(testHistory.body[0].error_message).to.contain('bad request to /hooks/path…/in?token=quer…&sig=k9x2…');

    const policy = await seedPolicy(svc.stores.postgres, WS);
    sink.answerNext({ status: 500, body: echo.body });
    const { alertId } = await raiseAlert(svc.stores.postgres, WS, policy);
    const attempts = await waitFor('a failed then a delivered attempt', async () => {
      const res = await api('GET', `/v1.0/alerts/${alertId}/deliveries`);
      return res.body.some((a: { status: string }) => a.status === 'delivered') ? res : null;
    });
    for (const attempt of attempts.body) expect(attempt.target).to.equal(shownUrl());
    const failed = attempts.body.find((a: { status: string }) => a.status === 'failed');
    expect(failed.error_message).to.contain('/hooks/path…/in?token=quer…');
    const destination = await api('GET', `/v1.0/destinations/${id}`);

    const all = [refused.text, testHistory.text, attempts.text, destination.text, ...lines].join('\n');
    expect(lines.some((l) => l.includes('"delivery failed"') && l.includes(shownUrl()))).to.equal(true);
    for (const secret of SECRETS) expect(all).not.to.contain(secret);
  });
});
