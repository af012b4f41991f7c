// A generic webhook URL carries its token in the query string or the path: it is abbreviated
// wherever it is shown or logged, and a PUT that sends back the URL as read keeps the stored one.
//
// A webhook's credential stays out of what the service shows and logs in every form it travels
// in: a receiver that echoed the request's headers in its error put `Basic <base64 of
// user:password>` into the 502, the attempt's error_message, last_error and the log, when only
// the literal secret was redacted. And a URL's user:password@ made the HTTP client send a Basic
// header of its own in place of the stored credentials.authorization; such URLs are refused.
import { expect } from 'chai';
import { FakeHttpServer, type RecordedRequest } from '../../helpers/fakeProviders.js';
import type { Json } from '../../helpers/http.js';
import { capturingLogger } from '../../helpers/logCapture.js';
import { raiseAlert, seedPolicy } from '../../helpers/outbox.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

const WS = 'webhook-url-ws';
const PATH_TOKEN = 'pathTokenAbcdefghijklmnop';
const QUERY_TOKEN = 'queryTokenZyxwvutsrq';
const SHORT_VALUE = 'k9x2b7';
const SECRETS = [PATH_TOKEN, QUERY_TOKEN, SHORT_VALUE];
const CREDENTIALS_WS = 'webhook-credentials-ws';
const USER = 'alertmon-sender';
const PASSWORD = 's3cr@tPassw0rd';
const STORED_AUTHORIZATION = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

/** Every form of the credential a receiver or a log could show, none of which may appear. */
function forms(user: string, password: string): string[] {
  const base64 = Buffer.from(`${user}:${password}`).toString('base64');
  return [password, encodeURIComponent(password), `${user}:${password}`, base64, base64.replace(/=+$/, ''), encodeURIComponent(base64)];
}

/** A receiver's 401 that echoes every header it got, as some frameworks' error pages do. */
const echoHeaders = (status: number) => (request: RecordedRequest) => ({ status, body: { error: 'unauthorized', received: request.headers } });

describe('webhook URL and credential redaction', function () {
  this.timeout(120_000);
  let svc: TestService;
  let sink: FakeHttpServer;
  let token: string;
  let credentialsToken: string;
  const { logger, lines } = capturingLogger();

  before(async () => {
    sink = await FakeHttpServer.start();
    svc = await startTestService({
      env: { ALLOW_PRIVATE_TARGETS: '1', DELIVERY_POLL_INTERVAL_MS: '50', DELIVERY_RETRY_SCHEDULE_MS: '100,100,100,100,100' },
      logger,
    });
    token = await svc.tokenFor(WS);
    credentialsToken = await svc.tokenFor(CREDENTIALS_WS);
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

  const credentialsApi = (method: string, path: string, body?: unknown) => svc.request(method, path, { token: credentialsToken, body });
  const withUserinfo = (user: string, password: string) => sink.origin.replace('http://', `http://${user}:${encodeURIComponent(password)}@`);

  /** A test send that the echoing receiver refuses, then the texts it left: the answer, its attempt and the destination. */
  async function refusedTestSend(id: string): Promise<{ request: RecordedRequest; texts: string[] }> {
    sink.answerNext(echoHeaders(401));
    const before = sink.requests.length;
    const refused = await credentialsApi('POST', `/v1.0/destinations/${id}/test`);
    expect(refused.status, refused.text).to.equal(502);
    // The receiver's answer is there (the client can see why), scrubbed.
    expect(refused.text).to.include('unauthorized');
    const attempts = await credentialsApi('GET', `/v1.0/alerts/${refused.body.alert_id}/deliveries?kind=test`);
    expect(attempts.body[0].error_message).to.include('unauthorized');
    const destination = await credentialsApi('GET', `/v1.0/destinations/${id}`);
    expect(destination.body.last_error).to.include('unauthorized');
    return { request: sink.requests[before]!, texts: [refused.text, attempts.text, destination.text] };
  }

  it('refuses a URL with user:password@ (or a user alone) at create and PUT, naming credentials.authorization', async () => {
    for (const url of [`${withUserinfo(USER, PASSWORD)}/hook`, sink.origin.replace('http://', 'http://tokenAsUser@')]) {
      const created = await credentialsApi('POST', '/v1.0/destinations', { channel: 'webhook', url });
      expect(created.status, url).to.equal(400);
      expect(created.body.error.details).to.deep.include({
        path: '/url',
        message: 'must not carry credentials (user:password@); send them as credentials.authorization: "Basic " and the base64 of user:password',
      });
    }
    expect((await credentialsApi('GET', '/v1.0/destinations')).body).to.deep.equal([]);
    const plain = await credentialsApi('POST', '/v1.0/destinations', { channel: 'webhook', url: `${sink.origin}/hook`, enabled: false });
    const put = await credentialsApi('PUT', `/v1.0/destinations/${plain.body.destination_id}`, { url: `${withUserinfo(USER, PASSWORD)}/hook` });
    expect(put.status).to.equal(400);
    const stored = await svc.stores.postgres.query<{ url: string }>('SELECT url FROM destinations WHERE destination_id = $1', [plain.body.destination_id]);
    expect(stored[0]!.url).to.equal(`${sink.origin}/hook`);
  });

  it('keeps credentials.authorization, and its base64 and decoded forms, out of the 502, attempts, last_error and the log', async () => {
    const created = await credentialsApi('POST', '/v1.0/destinations', {
      channel: 'webhook',
      url: `${sink.origin}/hook`,
      credentials: { authorization: STORED_AUTHORIZATION },
      enabled: false,
    });
    expect(created.status).to.equal(201);
    const { request, texts } = await refusedTestSend(created.body.destination_id);
    expect(request.headers.authorization).to.equal(STORED_AUTHORIZATION);

    // A real alert's failed delivery too: its attempt, last_error and the "delivery failed" log line.
    await credentialsApi('PUT', `/v1.0/destinations/${created.body.destination_id}`, { enabled: true });
    sink.answerNext(echoHeaders(403));
    const { alertId } = await raiseAlert(svc.stores.postgres, CREDENTIALS_WS, await seedPolicy(svc.stores.postgres, CREDENTIALS_WS));
    const attempts = await waitFor('the exhausted attempt', async () => {
      const res = await credentialsApi('GET', `/v1.0/alerts/${alertId}/deliveries`);
      return res.body.some((a: Json) => a.status === 'exhausted') ? res : null;
    });
    expect(attempts.body.find((a: Json) => a.status === 'exhausted').error_message).to.include('unauthorized');
    const destination = await credentialsApi('GET', `/v1.0/destinations/${created.body.destination_id}`);
    await credentialsApi('PUT', `/v1.0/destinations/${created.body.destination_id}`, { enabled: false });

    expect(lines.some((l) => l.includes('"delivery failed"') && l.includes('unauthorized'))).to.equal(true);
    const all = [...texts, attempts.text, destination.text, ...lines].join('\n');
    for (const form of forms(USER, PASSWORD)) expect(all, form).not.to.include(form);
  });

  it('sends a destination stored with userinfo before it was refused without it: its authorization when set, else the userinfo as Basic, and shows neither', async () => {
    const legacyUrl = `${withUserinfo(USER, PASSWORD)}/legacy`;
    const keep = async (credentials: unknown) => {
      const created = await credentialsApi('POST', '/v1.0/destinations', { channel: 'webhook', url: `${sink.origin}/legacy`, credentials, enabled: false });
      // As an earlier version stored it.
      await svc.stores.postgres.query('UPDATE destinations SET url = $2 WHERE destination_id = $1', [created.body.destination_id, legacyUrl]);
      return created.body.destination_id as string;
    };

    const userinfoOnly = await keep(null);
    const read = await credentialsApi('GET', `/v1.0/destinations/${userinfoOnly}`);
    expect(read.body.url).to.equal(`${sink.origin.replace('http://', `http://${USER}:s3cr…@`)}/legacy`);
    const sent = await refusedTestSend(userinfoOnly);
    expect(sent.request.headers.authorization).to.equal(`Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`);
    expect(sent.request.path).to.equal('/legacy');

    const otherAuthorization = 'Bearer receiver-token-0123456789abcdef';
    const both = await keep({ authorization: otherAuthorization });
    const bothSent = await refusedTestSend(both);
    // The stored authorization, not the Basic the HTTP client would make of the userinfo.
    expect(bothSent.request.headers.authorization).to.equal(otherAuthorization);

    const all = [read.text, ...sent.texts, ...bothSent.texts, ...lines].join('\n');
    for (const form of [...forms(USER, PASSWORD), otherAuthorization, 'receiver-token-0123456789abcdef']) expect(all, form).not.to.include(form);
  });
});
