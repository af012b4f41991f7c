// Safe retries of creates (docs/api.md, Safe retries): the JavaScript SDK retries every request whose answer
// was lost, and a retried createPolicy stored two policies. With an Idempotency-Key a create
// happens once per workspace and key within 24 hours.
import { expect } from 'chai';
import { expireIdempotencyKeys } from '../../../src/idempotency/operations.js';
import type { Json } from '../../helpers/http.js';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('Idempotency-Key on creates', function () {
  this.timeout(180_000);
  let svc: TestService;
  let token: string;
  let otherToken: string;
  let eventId: string;

  before(async () => {
    svc = await startTestService({ env: { EVAL_INTERVAL_MS: '86400000' } });
    token = await svc.tokenFor('idem-ws');
    otherToken = await svc.tokenFor('idem-other-ws');
    eventId = (await svc.request('POST', '/v1.0/events', { token, body: { event: 'idem.metric' } })).body.event_id;
  });
  after(() => svc.close());

  const policyBody = (title: string) => ({ event_id: eventId, title, period: 'minute', aggregate: 'max', condition: 'gt', threshold: 1, severity: 'warning' });
  const createPolicy = (key: string | null, body: unknown, as = token) =>
    svc.request('POST', '/v1.0/policies', { token: as, body, headers: key === null ? {} : { 'idempotency-key': key } });
  const titles = async (as = token) => (await svc.request('GET', '/v1.0/policies', { token: as })).body.map((p: Json) => p.title);

  it('creates once: a retry with the same key gets the first answer again, same status and body', async () => {
    const first = await createPolicy('retry-1', policyBody('retried'));
    expect(first.status).to.equal(201);
    const retry = await createPolicy('retry-1', policyBody('retried'));
    expect(retry.status).to.equal(201);
    expect(retry.text).to.equal(first.text);
    expect(retry.headers.get('idempotent-replayed')).to.equal('true');
    expect(retry.headers.get('content-type')).to.match(/^application\/json/);
    expect((await titles()).filter((t: string) => t === 'retried')).to.have.length(1);
    // Without a key, each request creates: the header is what makes a retry safe.
    await createPolicy(null, policyBody('keyless'));
    await createPolicy(null, policyBody('keyless'));
    expect((await titles()).filter((t: string) => t === 'keyless')).to.have.length(2);
  });

  it('refuses the same key with another body with 422 idempotency_key_reused, creating nothing', async () => {
    expect((await createPolicy('reuse-1', policyBody('first use'))).status).to.equal(201);
    const reused = await createPolicy('reuse-1', policyBody('second use'));
    expect(reused.status).to.equal(422);
    expect(reused.body.error.code).to.equal('idempotency_key_reused');
    expect(reused.body.message).to.equal(reused.body.error.message);
    // On another create route too.
    const elsewhere = await svc.request('POST', '/v1.0/events', { token, body: { event: 'reuse.elsewhere' }, headers: { 'idempotency-key': 'reuse-1' } });
    expect(elsewhere.status).to.equal(422);
    expect(await titles()).to.not.include('second use');
    const events = (await svc.request('GET', '/v1.0/events', { token })).body.map((e: Json) => e.event);
    expect(events).to.not.include('reuse.elsewhere');
  });

  it('creates once from concurrent requests with the same key, all answered the same', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => createPolicy('concurrent-1', policyBody('concurrent'))));
    expect(answers.map((a) => a.status)).to.deep.equal(Array(8).fill(201));
    expect(new Set(answers.map((a) => a.text)).size).to.equal(1);
    expect((await titles()).filter((t: string) => t === 'concurrent')).to.have.length(1);
  });

  it('keeps keys per workspace: another workspace may use the same key', async () => {
    const otherEvent = (await svc.request('POST', '/v1.0/events', { token: otherToken, body: { event: 'idem.metric' } })).body.event_id;
    const mine = await createPolicy('shared-key', policyBody('mine'));
    const theirs = await createPolicy('shared-key', { ...policyBody('theirs'), event_id: otherEvent }, otherToken);
    expect([mine.status, theirs.status]).to.deep.equal([201, 201]);
    expect(theirs.body.policy_id).to.not.equal(mine.body.policy_id);
    expect(await titles(otherToken)).to.deep.equal(['theirs']);
  });

  it('keeps only a successful answer: a refused create frees its key for the corrected retry', async () => {
    const refused = await createPolicy('fix-1', { ...policyBody('fixed'), threshold: 'high' });
    expect(refused.status).to.equal(400);
    const fixed = await createPolicy('fix-1', policyBody('fixed'));
    expect(fixed.status).to.equal(201);
    expect(await titles()).to.include('fixed');
  });

  it('works on every create: events, destinations, silences', async () => {
    const creates: [string, unknown, string][] = [
      ['/v1.0/events', { event: 'idem.created' }, 'event_id'],
      ['/v1.0/destinations', { channel: 'webhook', url: 'https://example.com/idem' }, 'destination_id'],
      [
        '/v1.0/silences',
        { policy_ids: null, starts_at: new Date().toISOString(), ends_at: new Date(Date.now() + 3_600_000).toISOString(), comment: 'idem' },
        'silence_id',
      ],
    ];
    for (const [path, body, idField] of creates) {
      const headers = { 'idempotency-key': `every-create ${path}` };
      const first = await svc.request('POST', path, { token, body, headers });
      const again = await svc.request('POST', path, { token, body, headers });
      expect([first.status, again.status], path).to.deep.equal([201, 201]);
      expect(again.body[idField], path).to.equal(first.body[idField]);
      const list = (await svc.request('GET', path, { token })).body;
      expect(
        list.filter((item: Json) => item[idField] === first.body[idField]),
        path,
      ).to.have.length(1);
      expect(list.length, path).to.equal(new Set(list.map((item: Json) => item[idField])).size);
    }
    // The destination's signing secret is shown in full in the create answer, so in its replay too, and nowhere else.
    const dest = (await svc.request('GET', '/v1.0/destinations', { token })).body.filter((d: Json) => d.url === 'https://example.com/idem');
    expect(dest).to.have.length(1);
  });

  it('refuses a malformed key with 400, creating nothing', async () => {
    for (const key of ['x'.repeat(256), 'tab\there', 'é']) {
      const res = await svc.request('POST', '/v1.0/policies', { token, body: policyBody('bad key'), headers: { 'idempotency-key': key } }).catch(() => null);
      // fetch itself refuses a non-Latin-1 header value; what reaches the service is refused.
      if (res !== null) expect(res.status, key).to.equal(400);
    }
    const empty = await svc.request('POST', '/v1.0/policies', { token, body: policyBody('bad key'), headers: { 'idempotency-key': '' } });
    expect(empty.status).to.equal(400);
    expect(empty.body.error.code).to.equal('invalid_idempotency_key');
    expect(await titles()).to.not.include('bad key');
  });

  it('forgets a key after 24 hours: expired keys are deleted, and a new request with one creates afresh', async () => {
    expect((await createPolicy('old-key', policyBody('day one'))).status).to.equal(201);
    expect((await createPolicy('older-key', policyBody('day zero'))).status).to.equal(201);
    await svc.stores.postgres.query(
      "UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE workspace_id = $1 AND idempotency_key IN ('old-key', 'older-key')",
      ['idem-ws'],
    );
    // Taken over at once by a request with it, even before the expiry runs.
    const again = await createPolicy('old-key', policyBody('day one'));
    expect(again.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal(null);
    expect((await titles()).filter((t: string) => t === 'day one')).to.have.length(2);
    // The worker's expiry deletes the rest.
    expect(await expireIdempotencyKeys(svc.stores.postgres)).to.equal(1);
    const left = await svc.stores.postgres.query('SELECT idempotency_key FROM idempotency_keys WHERE idempotency_key = $1', ['older-key']);
    expect(left).to.deep.equal([]);
  });

  it('ignores the header on routes that do not create', async () => {
    const policy = await createPolicy(null, policyBody('evaluated'));
    const at = new Date().toISOString();
    const headers = { 'idempotency-key': 'not-a-create' };
    const first = await svc.request('POST', `/v1.0/policies/${policy.body.policy_id}/evaluate`, { token, body: { at }, headers });
    const second = await svc.request('POST', `/v1.0/policies/${policy.body.policy_id}/evaluate`, { token, body: {}, headers });
    expect([first.status, second.status]).to.deep.equal([200, 200]);
  });
});
