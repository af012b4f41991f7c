// Safe retries of creates (docs/api.md, Safe retries): the JavaScript SDK retries every request whose answer
// was lost, and a retried createPolicy stored two policies. With an Idempotency-Key a create
// happens once per workspace and key within 24 hours.
import { expect } from 'chai';
import { apiRouters, everyRoute } from '../../../src/app.js';
import { createsResource } from '../../../src/http/apiRouter.js';
import { expireIdempotencyKeys } from '../../../src/idempotency/operations.js';
import type { Json } from '../../helpers/http.js';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('Idempotency-Key on creates', function () {
  this.timeout(180_000);
  let svc: TestService;
  let token: string;
  let otherToken: string;
  let eventId: string;
  let destinationId: string;
  let memberId: string;
  let scheduleId: string;
  const layersOf = (member: string) => [{ name: 'primary', start: '2027-01-04T09:00:00Z', rotation: { type: 'weekly' }, members: [member] }];

  before(async () => {
    svc = await startTestService({ env: { EVAL_INTERVAL_MS: '86400000' } });
    token = await svc.tokenFor('idem-ws');
    otherToken = await svc.tokenFor('idem-other-ws');
    eventId = (await svc.request('POST', '/v1.0/events', { token, body: { event: 'idem.metric' } })).body.event_id;
    destinationId = (await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: 'https://example.com/escalate' } })).body
      .destination_id;
    // What people, schedules and overrides name, made without a key.
    memberId = (await svc.request('POST', '/v1.0/people', { token, body: { name: 'idem member', destination_ids: [destinationId] } })).body.person_id;
    scheduleId = (await svc.request('POST', '/v1.0/schedules', { token, body: { name: 'idem base', timezone: 'UTC', layers: layersOf(memberId) } })).body
      .schedule_id;
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

  /**
   * Every route that creates (createsResource): a body for the nth request, the id its answer
   * carries, and the path to post to and list at (default: the route's).
   */
  const CREATES: Readonly<Record<string, { body: (n: number) => object; idField: string; at?: () => string }>> = {
    '/v1.0/events': { body: (n) => ({ event: `idem.created.${n}` }), idField: 'event_id' },
    '/v1.0/policies': { body: (n) => policyBody(`table ${n}`), idField: 'policy_id' },
    '/v1.0/destinations': { body: (n) => ({ channel: 'webhook', url: `https://example.com/idem/${n}` }), idField: 'destination_id' },
    '/v1.0/silences': {
      body: (n) => ({ policy_ids: null, starts_at: new Date().toISOString(), ends_at: new Date(Date.now() + 3_600_000).toISOString(), comment: `idem ${n}` }),
      idField: 'silence_id',
    },
    '/v1.0/escalation-policies': {
      body: (n) => ({ name: `idem ${n}`, steps: [{ after_minutes: 5, destination_ids: [destinationId] }], repeat: 0 }),
      idField: 'escalation_policy_id',
    },
    '/v1.0/alert-sources': {
      body: (n) => ({ name: `idem source ${n}`, inhibit_rules: [{ source_matchers: ['a="b"'], target_matchers: ['c=~"d|e"'] }] }),
      idField: 'alert_source_id',
    },
    '/v1.0/people': { body: (n) => ({ name: `idem person ${n}`, destination_ids: [destinationId] }), idField: 'person_id' },
    '/v1.0/schedules': { body: (n) => ({ name: `idem schedule ${n}`, timezone: 'Europe/Berlin', layers: layersOf(memberId) }), idField: 'schedule_id' },
    '/v1.0/schedules/:scheduleID/overrides': {
      body: (n) => ({ person_id: memberId, starts_at: `2027-02-0${n}T00:00:00.000Z`, ends_at: `2027-02-0${n + 1}T00:00:00.000Z` }),
      idField: 'override_id',
      at: () => `/v1.0/schedules/${scheduleId}/overrides`,
    },
  };
  /** Every other POST, and why it takes no key. */
  const NOT_CREATES: Readonly<Record<string, string>> = {
    '/v1.0/logs': 'records are idempotent by log_id',
    '/v1/metrics': 'points are idempotent by series and time',
    '/api/v1/write': 'samples are idempotent by series and time',
    '/v1.0/events/:eventID/share-token': 'replaces the share token; the answer holds the new one',
    '/v1.0/destinations/:destinationID/rotate-secret': 'replaces the signing secret; the answer holds the new one',
    '/v1.0/schedules/:scheduleID/ical-token': 'replaces the calendar feed token; the answer holds the new one',
    '/v1.0/destinations/:destinationID/test': 'sends a test notification, recorded as its attempt',
    '/v1.0/policies/:policyID/evaluate': 'judges a bucket; the alert it may raise is one per policy',
    '/v1.0/policies/backtest': 'stores nothing',
    '/v1.0/policies/:policyID/backtest': 'stores nothing',
    '/v1.0/policies/test': 'policy unit tests store nothing',
    '/v1.0/config/plan': 'stores nothing',
    '/v1.0/config/apply': 'applying the same document again changes nothing (objects by key); expected_version guards against a change between',
    '/v1.0/alerts/:alertID/acknowledge': 'repeating an alert action is harmless without a key',
    '/v1.0/alerts/:alertID/resolve': 'repeating an alert action is harmless without a key',
    '/v1.0/alerts/:alertID/archive': 'repeating an alert action is harmless without a key',
    '/ack/:alertID': 'acknowledges, as the alert action does',
    '/alertmanager/:alertSourceID/api/v2/alerts': 'alerts are one per label set (fingerprint): a repeated post extends them',
    '/alertmanager/:alertSourceID/api/v2/silences': "Alertmanager's API, answered 200 with the silenceID as Alertmanager answers (amtool sends no key)",
    '/v1.0/admin/tokens': 'its answer holds a token, which is never stored',
    '/v1.0/admin/sql': 'the admin API; creates no workspace resource',
  };

  it('knows every POST route: each creates and takes a key, or is listed with why it does not', () => {
    const posts = everyRoute(apiRouters(svc.services)).filter((route) => route.spec.method === 'post');
    for (const route of posts) {
      // A new create route goes into CREATES (the test below then proves it), anything else into NOT_CREATES.
      const known = route.fullPath in CREATES ? 'creates' : route.fullPath in NOT_CREATES ? 'does not create' : 'unknown to this test';
      expect(known, `POST ${route.fullPath}`).to.equal(createsResource(route.spec) ? 'creates' : 'does not create');
    }
    expect(posts.map((r) => r.fullPath)).to.include.members([...Object.keys(CREATES), ...Object.keys(NOT_CREATES)]);
  });

  for (const [route, { body, idField, at }] of Object.entries(CREATES)) {
    it(`creates once on POST ${route}: five concurrent requests with one key, five identical answers; the key with another body is 422`, async () => {
      const path = at?.() ?? route;
      const ids = async () => (await svc.request('GET', path, { token })).body.map((item: Json) => item[idField]);
      const before = await ids();
      const headers = { 'idempotency-key': `table ${route}` };
      const first = body(1); // made once: a silence's body holds times
      const answers = await Promise.all(Array.from({ length: 5 }, () => svc.request('POST', path, { token, body: first, headers })));
      expect(answers.map((a) => a.status)).to.deep.equal(Array(5).fill(201));
      expect(new Set(answers.map((a) => a.text)).size).to.equal(1);
      const after = await ids();
      expect(after.filter((id: string) => !before.includes(id))).to.deep.equal([answers[0]!.body[idField]]);

      const reused = await svc.request('POST', path, { token, body: body(2), headers });
      expect(reused.status).to.equal(422);
      expect(reused.body.error.code).to.equal('idempotency_key_reused');
      expect(await ids()).to.have.length(after.length);
    });
  }

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
