// Signed webhooks checked the way a receiver would, from the Standard Webhooks specification's
// text and not with alertmon's signing code: the signed content is
// "<webhook-id>.<webhook-timestamp>.<body>", the key is the base64-decoded part of the secret
// after "whsec_", the signature is base64(HMAC-SHA256(key, content)) prefixed "v1,", and
// webhook-signature lists one or more of them separated by spaces.
import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { FakeHttpServer, type RecordedRequest } from '../../helpers/fakeProviders.js';
import { raiseAlert, seedPolicy } from '../../helpers/outbox.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

const WS = 'webhook-signing-ws';

/** The signatures of the request that `secret` made, per the specification; throws when none matches. */
function verifyWithSpec(request: RecordedRequest, secret: string): void {
  const id = String(request.headers['webhook-id']);
  const timestamp = String(request.headers['webhook-timestamp']);
  const key = Buffer.from(secret.split('_')[1]!, 'base64');
  const expected = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest('base64')}`;
  const given = String(request.headers['webhook-signature']).split(' ');
  if (!given.includes(expected)) throw new Error(`no signature of ${secret.slice(0, 10)}… in ${given.join(' ')}`);
}

function expectRecentTimestamp(request: RecordedRequest): number {
  const timestamp = Number(request.headers['webhook-timestamp']);
  expect(Number.isInteger(timestamp)).to.equal(true);
  // The specification's receivers refuse timestamps more than 5 minutes off.
  expect(Math.abs(timestamp - request.at / 1000)).to.be.below(300);
  return timestamp;
}

describe('signed webhooks', function () {
  this.timeout(60_000);
  let svc: TestService;
  let sink: FakeHttpServer;
  let token: string;

  before(async () => {
    sink = await FakeHttpServer.start();
    svc = await startTestService({
      // Retries over a second apart, so each try has a timestamp of its own.
      env: { ALLOW_PRIVATE_TARGETS: '1', DELIVERY_POLL_INTERVAL_MS: '50', DELIVERY_RETRY_SCHEDULE_MS: '1300,1300,1300,1300,1300' },
    });
    token = await svc.tokenFor(WS);
  });
  after(async () => {
    await svc.close();
    await sink.close();
  });

  const api = (method: string, path: string, body?: unknown, as = token) => svc.request(method, path, { token: as, body });
  async function createWebhook(path: string) {
    await svc.stores.postgres.query('UPDATE destinations SET enabled = false WHERE workspace_id = $1', [WS]);
    const res = await api('POST', '/v1.0/destinations', { channel: 'webhook', url: `${sink.origin}${path}` });
    expect(res.status).to.equal(201);
    return { id: res.body.destination_id as string, secret: res.body.signing_secret as string, body: res.body };
  }
  const requestsTo = (path: string) => sink.requests.filter((r) => r.path === path);

  it('shows the secret once, on create, and abbreviated everywhere else', async () => {
    const { id, secret, body } = await createWebhook('/shown');
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).to.have.length(32);
    const read = await api('GET', `/v1.0/destinations/${id}`);
    expect(read.body.signing_secret).to.equal('whse…');
    expect(read.body.previous_signing_secret_expires_at).to.equal(null);
    const listed = await api('GET', '/v1.0/destinations');
    const put = await api('PUT', `/v1.0/destinations/${id}`, read.body);
    expect(put.status).to.equal(200);
    for (const text of [read.text, listed.text, put.text]) expect(text).not.to.contain(secret.slice(6));
    expect(body.signing_secret).to.equal(secret);
    const slack = await api('POST', '/v1.0/destinations', { channel: 'email', url: 'ops@example.com' });
    expect(slack.body.signing_secret).to.equal(null);
  });

  it('signs a test send with webhook-id equal to the Idempotency-Key', async () => {
    const { id, secret } = await createWebhook('/test-send');
    const res = await api('POST', `/v1.0/destinations/${id}/test`);
    expect(res.status).to.equal(200);
    const [request] = requestsTo('/test-send');
    expect(request!.headers['webhook-id']).to.equal(res.body.alert_id);
    expect(request!.headers['webhook-id']).to.equal(request!.headers['idempotency-key']);
    expectRecentTimestamp(request!);
    verifyWithSpec(request!, secret);
    expect(() => verifyWithSpec({ ...request!, body: request!.body.replace('"test"', '"tset"') }, secret)).to.throw();
  });

  it('signs an alert and each retry: the same webhook-id, a new timestamp and signature', async () => {
    const { secret } = await createWebhook('/alert');
    const policy = await seedPolicy(svc.stores.postgres, WS);
    sink.answerNext({ status: 503, body: 'busy' });
    const { notificationId } = await raiseAlert(svc.stores.postgres, WS, policy);
    const [first, second] = await waitFor('a try and its retry', async () => (requestsTo('/alert').length >= 2 ? requestsTo('/alert') : null));
    for (const request of [first!, second!]) {
      expect(request.headers['webhook-id']).to.equal(notificationId);
      verifyWithSpec(request, secret);
    }
    expect(first!.body).to.equal(second!.body);
    expect(expectRecentTimestamp(second!)).to.be.above(expectRecentTimestamp(first!));
    expect(second!.headers['webhook-signature']).not.to.equal(first!.headers['webhook-signature']);
  });

  it('rotates the secret: both sign during the overlap, then only the new one', async () => {
    const { id, secret: old } = await createWebhook('/rotated');
    const rotated = await api('POST', `/v1.0/destinations/${id}/rotate-secret`);
    expect(rotated.status).to.equal(200);
    const fresh = rotated.body.signing_secret as string;
    expect(fresh)
      .to.match(/^whsec_/)
      .and.not.equal(old);
    const overlapEnds = Date.parse(rotated.body.previous_signing_secret_expires_at);
    expect(overlapEnds - Date.now()).to.be.within(23.9 * 3600_000, 24 * 3600_000);
    expect((await api('GET', `/v1.0/destinations/${id}`)).body.signing_secret).to.equal('whse…');

    expect((await api('POST', `/v1.0/destinations/${id}/test`)).status).to.equal(200);
    const during = requestsTo('/rotated').at(-1)!;
    expect(String(during.headers['webhook-signature']).split(' ')).to.have.length(2);
    verifyWithSpec(during, fresh);
    verifyWithSpec(during, old);

    // The overlap ends (24 hours later, brought forward here).
    await svc.stores.postgres.query(`UPDATE destinations SET previous_signing_secret_expires_at = now() - interval '1 second' WHERE destination_id = $1`, [id]);
    expect((await api('POST', `/v1.0/destinations/${id}/test`)).status).to.equal(200);
    const after = requestsTo('/rotated').at(-1)!;
    expect(String(after.headers['webhook-signature']).split(' ')).to.have.length(1);
    verifyWithSpec(after, fresh);
    expect(() => verifyWithSpec(after, old)).to.throw();
  });

  it('refuses to rotate what has no secret, and another workspace’s destination', async () => {
    const email = await api('POST', '/v1.0/destinations', { channel: 'email', url: 'ops@example.com' });
    const refused = await api('POST', `/v1.0/destinations/${email.body.destination_id}/rotate-secret`);
    expect(refused.status).to.equal(400);
    const { id } = await createWebhook('/other');
    const other = await svc.tokenFor('webhook-signing-other-ws');
    expect((await api('POST', `/v1.0/destinations/${id}/rotate-secret`, undefined, other)).status).to.equal(404);
    expect((await api('POST', '/v1.0/destinations/not-a-uuid/rotate-secret')).status).to.be.oneOf([400, 404]);
  });

  it('gives existing webhook destinations a secret when migration 0007 runs', async () => {
    const { id } = await createWebhook('/migrated');
    await svc.stores.postgres.query('UPDATE destinations SET signing_secret = NULL WHERE destination_id = $1', [id]);
    const { readMigrations, splitStatements } = await import('../../../src/stores/migrations.js');
    const migration = (await readMigrations('postgres')).find((m) => m.version === '0007')!;
    for (const statement of splitStatements(migration.sql)) await svc.stores.postgres.query(statement);
    const rows = await svc.stores.postgres.query<{ signing_secret: string }>('SELECT signing_secret FROM destinations WHERE destination_id = $1', [id]);
    expect(rows[0]!.signing_secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(rows[0]!.signing_secret.slice(6), 'base64')).to.have.length(32);
    const rotated = await api('POST', `/v1.0/destinations/${id}/rotate-secret`);
    expect(rotated.body.previous_signing_secret_expires_at).to.be.a('string');
  });
});
