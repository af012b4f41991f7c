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

  it('fills the defaults of description, channel and enabled', async () => {
    const { channel: _c, enabled: _e, ...required } = full();
    const res = await create(required);
    expect(res.status).to.equal(201);
    expect(res.body).to.include({ description: '', channel: 'default', enabled: true });
  });

  it('requires every field docs/api.md names, and lists each missing one', async () => {
    const res = await create({});
    expect(res.status).to.equal(400);
    const paths = res.body.error.details.map((d: { path: string }) => d.path).sort();
    expect(paths).to.deep.equal(['/aggregate', '/condition', '/event_id', '/period', '/severity', '/threshold', '/title']);
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
    const res = await svc.request('POST', path, { token, body: { at: '2026-11-21T10:00:30Z' } });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({
      policy_id: created.policy_id,
      bucket_start: '2026-11-21T09:59:00.000Z',
      bucket_end: '2026-11-21T10:00:00.000Z',
      breached: false,
      alert: null,
    });
    const now = await svc.request('POST', path, { token });
    expect(now.status).to.equal(200);
    expect(Date.parse(now.body.bucket_end)).to.be.at.most(Date.now());
  });

  it('deletes a policy: 204, then 404', async () => {
    const created = (await create(full())).body;
    const path = `/v1.0/policies/${created.policy_id}`;
    expect((await svc.request('DELETE', path, { token })).status).to.equal(204);
    expect((await svc.request('GET', path, { token })).status).to.equal(404);
    expect((await svc.request('DELETE', path, { token })).status).to.equal(404);
  });
});
