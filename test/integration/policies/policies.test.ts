import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('policies API', function () {
  this.timeout(60_000);
  let svc: TestService;
  let token: string;
  let otherToken: string;
  let eventId: string;
  let otherEventId: string;

  before(async () => {
    // The worker stays out of the way: these tests are about the API.
    svc = await startTestService({ env: { EVAL_INTERVAL_MS: '86400000' } });
    token = await svc.tokenFor('policies-ws');
    otherToken = await svc.tokenFor('policies-other-ws');
    eventId = (await svc.request('POST', '/v1.0/events', { token, body: { event: 'http.latency_ms', agent: 'web' } })).body.event_id;
    otherEventId = (await svc.request('POST', '/v1.0/events', { token: otherToken, body: { event: 'theirs' } })).body.event_id;
  });
  after(() => svc.close());

  const full = () => ({
    event_id: eventId,
    title: 'Slow pages',
    channel: 'ops',
    period: 'minute',
    aggregate: 'p95_est',
    condition: 'gt',
    threshold: 250.5,
    severity: 'warning',
    enabled: true,
  });
  const create = (body: unknown, as = token) => svc.request('POST', '/v1.0/policies', { token: as, body });

  it('creates a policy from the full create request and reads it back', async () => {
    const res = await create({ ...full(), description: 'p95 over 250 ms' });
    expect(res.status).to.equal(201);
    expect(res.body).to.include({ ...full(), description: 'p95 over 250 ms' });
    expect(res.body.policy_id).to.match(/^[0-9a-f-]{36}$/);
    expect(res.body.created_at).to.match(ISO_MS);
    expect(res.body.updated_at).to.match(ISO_MS);
    const read = await svc.request('GET', `/v1.0/policies/${res.body.policy_id}`, { token });
    expect(read.status).to.equal(200);
    expect(read.body).to.deep.equal(res.body);
  });

  it('fills the defaults of description, severity, channel and enabled', async () => {
    // The Python SDK's README creates policies without a severity.
    const { channel: _c, enabled: _e, severity: _s, ...required } = full();
    const res = await create(required);
    expect(res.status).to.equal(201);
    expect(res.body).to.include({ description: '', severity: 'warning', channel: 'default', enabled: true });
  });

  it('requires every field docs/api.md names, and lists each missing one', async () => {
    const res = await create({});
    expect(res.status).to.equal(400);
    const paths = res.body.error.details.map((d: { path: string }) => d.path).sort();
    expect(paths).to.deep.equal(['/aggregate', '/condition', '/event_id', '/period', '/threshold', '/title']);
  });

  for (const [field, value] of [
    ['period', 'week'],
    ['aggregate', 'median'],
    ['condition', 'ne'],
    ['severity', 'fatal'],
    ['threshold', '5'],
    ['enabled', 'yes'],
    ['event_id', 'not-a-uuid'],
    ['title', '  '],
  ] as const) {
    it(`refuses ${field} = ${JSON.stringify(value)} with 400`, async () => {
      const res = await create({ ...full(), [field]: value });
      expect(res.status).to.equal(400);
      expect(res.body.error.details.map((d: { path: string }) => d.path)).to.include(`/${field}`);
    });
  }

  it('refuses a non-finite threshold (1e999 parses as Infinity)', async () => {
    const raw = JSON.stringify(full()).replace('250.5', '1e999');
    const res = await svc.request('POST', '/v1.0/policies', { token, rawBody: raw, headers: { 'content-type': 'application/json' } });
    expect(res.status).to.equal(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['/threshold']);
  });

  it('refuses unknown fields', async () => {
    const res = await create({ ...full(), treshold: 3 });
    expect(res.status).to.equal(400);
    expect(res.body.error.details[0].path).to.equal('/treshold');
  });

  it("answers 404 for an event that is not the workspace's", async () => {
    expect((await create({ ...full(), event_id: otherEventId })).status).to.equal(404);
    expect((await create({ ...full(), event_id: '0196f7a0-3c1e-7000-8000-000000000001' })).status).to.equal(404);
  });

  it('updates any subset, a title alone included, and ignores read-only fields sent back', async () => {
    const created = (await create(full())).body;
    const titled = await svc.request('PUT', `/v1.0/policies/${created.policy_id}`, { token, body: { title: 'Renamed' } });
    expect(titled.status).to.equal(200);
    expect(titled.body).to.include({ ...full(), title: 'Renamed' });
    const sentBack = {
      ...titled.body,
      threshold: 9,
      enabled: false,
      policy_id: '0196f7a0-3c1e-7000-8000-000000000009',
      created_at: '2000-01-01T00:00:00.000Z',
    };
    const res = await svc.request('PUT', `/v1.0/policies/${created.policy_id}`, { token, body: sentBack });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ policy_id: created.policy_id, created_at: created.created_at, threshold: 9, enabled: false, title: 'Renamed' });
    expect((await svc.request('GET', `/v1.0/policies/${created.policy_id}`, { token })).body).to.deep.equal(res.body);
  });

  it('refuses on update what it refuses on create, and changes nothing', async () => {
    const created = (await create(full())).body;
    const path = `/v1.0/policies/${created.policy_id}`;
    expect((await svc.request('PUT', path, { token, body: { condition: 'between' } })).status).to.equal(400);
    expect((await svc.request('PUT', path, { token, body: { colour: 'red' } })).status).to.equal(400);
    expect((await svc.request('PUT', path, { token, body: { event_id: otherEventId } })).status).to.equal(404);
    expect((await svc.request('GET', path, { token })).body).to.deep.equal(created);
  });

  it('answers 400 invalid_id for a policyID that is not a UUID, on every route', async () => {
    for (const [method, suffix] of [
      ['GET', ''],
      ['PUT', ''],
      ['DELETE', ''],
      ['POST', '/evaluate'],
    ] as const) {
      const res = await svc.request(method, `/v1.0/policies/nope${suffix}`, { token, body: method === 'GET' || method === 'DELETE' ? undefined : {} });
      expect(res.status, `${method} ${suffix}`).to.equal(400);
      expect(res.body.error.code).to.equal('invalid_id');
    }
  });

  it("hides another workspace's policies (404, not in lists)", async () => {
    const mine = (await create(full())).body;
    const path = `/v1.0/policies/${mine.policy_id}`;
    expect((await svc.request('GET', path, { token: otherToken })).status).to.equal(404);
    expect((await svc.request('PUT', path, { token: otherToken, body: { title: 'x' } })).status).to.equal(404);
    expect((await svc.request('DELETE', path, { token: otherToken })).status).to.equal(404);
    expect((await svc.request('POST', `${path}/evaluate`, { token: otherToken, body: {} })).status).to.equal(404);
    const theirs = await svc.request('GET', '/v1.0/policies', { token: otherToken });
    expect(theirs.body.map((p: { policy_id: string }) => p.policy_id)).not.to.include(mine.policy_id);
  });

  it('lists newest first with limit and offset, and validates them', async () => {
    const fresh = await svc.tokenFor('policies-list-ws');
    const ev = (await svc.request('POST', '/v1.0/events', { token: fresh, body: { event: 'e' } })).body.event_id;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create({ ...full(), event_id: ev, title: `p${i}` }, fresh)).body.policy_id);
    const all = await svc.request('GET', '/v1.0/policies', { token: fresh });
    expect(all.body.map((p: { policy_id: string }) => p.policy_id)).to.deep.equal([...ids].reverse());
    const page = await svc.request('GET', '/v1.0/policies?limit=1&offset=1', { token: fresh });
    expect(page.body.map((p: { policy_id: string }) => p.policy_id)).to.deep.equal([ids[1]]);
    for (const bad of ['limit=-1', 'limit=1001', 'offset=1.5', 'limit=ten']) {
      expect((await svc.request('GET', `/v1.0/policies?${bad}`, { token: fresh })).status, bad).to.equal(400);
    }
  });

  it('validates the evaluate body: an ISO `at`, nothing else', async () => {
    const created = (await create(full())).body;
    const path = `/v1.0/policies/${created.policy_id}/evaluate`;
    for (const body of [{ at: 'yesterday' }, { at: 5 }, { when: '2026-11-21T10:00:00Z' }]) {
      expect((await svc.request('POST', path, { token, body })).status, JSON.stringify(body)).to.equal(400);
    }
    const minute = Math.floor(Date.now() / 60_000) * 60_000 - 2 * 86_400_000;
    const res = await svc.request('POST', path, { token, body: { at: new Date(minute + 30_000).toISOString() } });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({
      policy_id: created.policy_id,
      bucket_start: new Date(minute - 60_000).toISOString(),
      bucket_end: new Date(minute).toISOString(),
      breached: false,
      alert: null,
    });
    const now = await svc.request('POST', path, { token });
    expect(now.status).to.equal(200);
    expect(Date.parse(now.body.bucket_end)).to.be.at.most(Date.now());
  });

  it('refuses an evaluate `at` outside the range logs can have (30 days back to 1 day ahead), and changes nothing', async () => {
    const created = (await create(full())).body;
    const path = `/v1.0/policies/${created.policy_id}/evaluate`;
    const day = 86_400_000;
    for (const at of [
      '0000-01-01T00:00:00Z',
      '9999-12-31T23:59:59Z',
      new Date(Date.now() - 31 * day).toISOString(),
      new Date(Date.now() + 2 * day).toISOString(),
    ]) {
      const res = await svc.request('POST', path, { token, body: { at } });
      expect(res.status, at).to.equal(400);
      expect(res.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['/at']);
    }
    const inside = await svc.request('POST', path, { token, body: { at: new Date(Date.now() - 29 * day).toISOString() } });
    expect(inside.status).to.equal(200);
    expect((await svc.request('GET', '/v1.0/alerts', { token })).body.filter((a: { policy_id: string }) => a.policy_id === created.policy_id)).to.deep.equal(
      [],
    );
  });

  it('reads an evaluate `at` ahead of now as now: a bucket still to come is not judged, nor alerted on', async () => {
    // count lt 1 on an event with no logs breaches on every bucket, a future one included if it were judged.
    const created = (await create({ ...full(), aggregate: 'count', condition: 'lt', threshold: 1 })).body;
    const before = Date.now();
    const res = await svc.request('POST', `/v1.0/policies/${created.policy_id}/evaluate`, {
      token,
      body: { at: new Date(before + 12 * 3_600_000).toISOString() },
    });
    expect(res.status, res.text).to.equal(200);
    expect(Date.parse(res.body.bucket_end)).to.be.at.most(Date.now());
    expect(Date.parse(res.body.bucket_end)).to.be.at.least(Math.floor(before / 60_000) * 60_000);
    expect(res.body).to.include({ breached: true });
    expect(res.body.alert).to.include({ bucket_start: res.body.bucket_start, status: 'triggered' });
  });

  describe('rule options', () => {
    const options = {
      pending_buckets: 3,
      recovery_threshold: 200,
      no_data: 'breach',
      compare_to: 'previous_7d',
      min_count: 10,
      renotify_minutes: 30,
    };

    it('are created, read back and listed, and default to the plain threshold rule', async () => {
      const res = await create({ ...full(), ...options });
      expect(res.status, res.text).to.equal(201);
      expect(res.body).to.include(options);
      expect((await svc.request('GET', `/v1.0/policies/${res.body.policy_id}`, { token })).body).to.deep.equal(res.body);
      const listed = (await svc.request('GET', '/v1.0/policies', { token })).body.find((p: { policy_id: string }) => p.policy_id === res.body.policy_id);
      expect(listed).to.deep.equal(res.body);
      const plain = await create(full());
      expect(plain.body).to.include({
        pending_buckets: 1,
        recovery_threshold: null,
        no_data: 'no_verdict',
        compare_to: null,
        min_count: 0,
        renotify_minutes: null,
      });
    });

    for (const [what, body, path] of [
      ['recovery_threshold above a gt threshold', { recovery_threshold: 251 }, '/recovery_threshold'],
      ['recovery_threshold below an lt threshold', { condition: 'lt', recovery_threshold: 250 }, '/recovery_threshold'],
      ['recovery_threshold with eq', { condition: 'eq', recovery_threshold: 250.5 }, '/recovery_threshold'],
      ['compare_to previous_1d on a day period', { period: 'day', compare_to: 'previous_1d' }, '/compare_to'],
      ['an unknown compare_to', { compare_to: 'previous_1m' }, '/compare_to'],
      ['an unknown no_data', { no_data: 'maybe' }, '/no_data'],
      ['pending_buckets 0', { pending_buckets: 0 }, '/pending_buckets'],
      ['pending_buckets 101', { pending_buckets: 101 }, '/pending_buckets'],
      ['pending_buckets 1.5', { pending_buckets: 1.5 }, '/pending_buckets'],
      ['renotify_minutes 0', { renotify_minutes: 0 }, '/renotify_minutes'],
      ['renotify_minutes 10081', { renotify_minutes: 10_081 }, '/renotify_minutes'],
      ['min_count -1', { min_count: -1 }, '/min_count'],
      ['min_count as a string', { min_count: '5' }, '/min_count'],
    ] as const) {
      it(`refuses ${what} with 400 naming the field`, async () => {
        const res = await create({ ...full(), ...body });
        expect(res.status, res.text).to.equal(400);
        expect(res.body.error.details.map((d: { path: string }) => d.path)).to.include(path);
      });
    }

    it('refuses a non-finite recovery_threshold or an integer option of 1e400', async () => {
      for (const [field, raw] of [
        ['recovery_threshold', '1e999'],
        ['pending_buckets', '1e400'],
        ['renotify_minutes', '-1e400'],
      ] as const) {
        const text = JSON.stringify({ ...full(), [field]: 0 }).replace(`"${field}":0`, `"${field}":${raw}`);
        const res = await svc.request('POST', '/v1.0/policies', { token, rawBody: text, headers: { 'content-type': 'application/json' } });
        expect(res.status, field).to.equal(400);
        expect(res.body.error.details.map((d: { path: string }) => d.path)).to.include(`/${field}`);
      }
    });

    it('checks a PUT on the policy it would leave, clears options with null, and takes back what it read', async () => {
      const created = (await create({ ...full(), ...options })).body;
      const path = `/v1.0/policies/${created.policy_id}`;
      // A lower threshold would leave the recovery threshold on the breaching side.
      const refused = await svc.request('PUT', path, { token, body: { threshold: 100 } });
      expect(refused.status).to.equal(400);
      expect(refused.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['/recovery_threshold']);
      expect((await svc.request('PUT', path, { token, body: { period: 'day', compare_to: 'previous_1d' } })).status).to.equal(400);
      expect((await svc.request('GET', path, { token })).body).to.deep.equal(created);

      const cleared = await svc.request('PUT', path, { token, body: { recovery_threshold: null, compare_to: null, renotify_minutes: null, threshold: 100 } });
      expect(cleared.status, cleared.text).to.equal(200);
      expect(cleared.body).to.include({ recovery_threshold: null, compare_to: null, renotify_minutes: null, threshold: 100, pending_buckets: 3 });
      const sentBack = await svc.request('PUT', path, { token, body: { ...cleared.body, pending_buckets: 5 } });
      expect(sentBack.status, sentBack.text).to.equal(200);
      expect(sentBack.body).to.include({ pending_buckets: 5, min_count: 10, no_data: 'breach' });
    });
  });

  describe('backtest requests', () => {
    const day = 86_400_000;

    it('validates the range: at most 30 days back, from before to', async () => {
      const created = (await create(full())).body;
      const path = `/v1.0/policies/${created.policy_id}/backtest`;
      for (const [body, field] of [
        [{ from: new Date(Date.now() - 31 * day).toISOString() }, '/from'],
        [{ from: '0000-01-01T00:00:00Z' }, '/from'],
        [{ to: '9999-12-31T00:00:00Z' }, '/to'],
        [{ from: new Date(Date.now() - day).toISOString(), to: new Date(Date.now() - 2 * day).toISOString() }, '/from'],
        [{ from: 'yesterday' }, '/from'],
        [{ since: new Date().toISOString() }, '/since'],
      ] as const) {
        const res = await svc.request('POST', path, { token, body });
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.error.details.map((d: { path: string }) => d.path)).to.include(field);
      }
      const res = await svc.request('POST', path, { token, body: {} });
      expect(res.status, res.text).to.equal(200);
      expect(Date.parse(res.body.to) - Date.parse(res.body.from)).to.equal(7 * day);
      expect(res.body.alerts).to.deep.equal([]);
      expect(res.body.buckets_evaluated).to.be.within(7 * 1440 - 2, 7 * 1440);
    });

    it('checks a draft as a create would, and finds only the workspace’s policies and events', async () => {
      const draft = (body: unknown, as = token) => svc.request('POST', '/v1.0/policies/backtest', { token: as, body });
      expect((await draft({ policy: { ...full(), recovery_threshold: 300 } })).status).to.equal(400);
      expect((await draft({ policy: { ...full(), treshold: 1 } })).status).to.equal(400);
      expect((await draft({})).status).to.equal(400);
      expect((await draft({ policy: { ...full(), event_id: otherEventId } })).status).to.equal(404);
      const ok = await draft({ policy: full(), from: new Date(Date.now() - day).toISOString() });
      expect(ok.status, ok.text).to.equal(200);
      const mine = (await create(full())).body;
      expect((await svc.request('POST', `/v1.0/policies/${mine.policy_id}/backtest`, { token: otherToken, body: {} })).status).to.equal(404);
      expect((await svc.request('POST', '/v1.0/policies/nope/backtest', { token, body: {} })).body.error.code).to.equal('invalid_id');
    });
  });

  it('deletes a policy: 204, then 404', async () => {
    const created = (await create(full())).body;
    const path = `/v1.0/policies/${created.policy_id}`;
    expect((await svc.request('DELETE', path, { token })).status).to.equal(204);
    expect((await svc.request('GET', path, { token })).status).to.equal(404);
    expect((await svc.request('DELETE', path, { token })).status).to.equal(404);
  });
});
