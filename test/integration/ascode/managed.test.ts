// Drift (docs/as-code.md): GET /v1.0/config/managed tells whether the last document applied to
// the workspace had an object, and whether it was changed since in the console or the API.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('objects managed from a file: drift since the last apply', function () {
  this.timeout(120_000);
  let svc: TestService;
  let token: string;
  let other: string;

  before(async function () {
    this.timeout(600_000);
    svc = await startTestService();
    token = await svc.tokenFor('managed-ws');
    other = await svc.tokenFor('managed-other-ws');
    for (const t of [token, other]) await svc.request('POST', '/v1.0/events', { token: t, body: { event: 'latency', agent: 'web' } });
  });
  after(async () => svc?.close());

  const policy = (key: string, threshold: number) => ({
    key,
    title: `Policy ${key}`,
    event_definition: { agent: 'web', event: 'latency' },
    period: 'minute',
    aggregate: 'average',
    condition: 'gt',
    threshold,
    severity: 'warning',
  });
  const document = (threshold: number) => ({
    version: 1,
    destinations: [{ key: 'hook', channel: 'webhook', url: 'https://example.com/hook' }],
    people: [{ key: 'ada', name: 'Ada', destinations: ['hook'] }],
    policies: [policy('slow', threshold), policy('slower', 500)],
  });
  const apply = async (doc: object, as = token) => {
    const res = await svc.request('POST', '/v1.0/config/apply', { token: as, body: doc });
    expect(res.status, res.text).to.equal(200);
  };
  const managed = async (kind: string, id: string, as = token) => {
    const res = await svc.request('GET', `/v1.0/config/managed?kind=${kind}&id=${id}`, { token: as });
    expect(res.status, res.text).to.equal(200);
    return res.body as { managed: boolean; key?: string; applied_at?: string; updated_at?: string; changed?: boolean };
  };
  const idOf = async (path: string, idField: string, key: string, as = token) =>
    ((await svc.request('GET', path, { token: as })).body as Record<string, string>[]).find((o) => o.key === key)![idField]!;

  it('tells an applied object from one changed since, and an object no document had', async () => {
    const before = Date.now();
    await apply(document(100));
    const slow = await idOf('/v1.0/policies', 'policy_id', 'slow');
    const ada = await idOf('/v1.0/people', 'person_id', 'ada');
    const status = await managed('policies', slow);
    expect(status).to.include({ managed: true, key: 'slow', changed: false });
    expect(Date.parse(status.applied_at!)).to.be.within(before - 1000, Date.now());
    expect((await managed('people', ada)).changed).to.equal(false);

    // Changed through the API (as the console does): drift, on that object only.
    const put = await svc.request('PUT', `/v1.0/policies/${slow}`, { token, body: { threshold: 150 } });
    expect(put.status, put.text).to.equal(200);
    expect(await managed('policies', slow)).to.include({ managed: true, changed: true });
    expect((await managed('policies', await idOf('/v1.0/policies', 'policy_id', 'slower'))).changed).to.equal(false);
    expect((await managed('people', ada)).changed).to.equal(false);

    // The next apply overwrites the change: no drift any more.
    await apply(document(100));
    expect((await svc.request('GET', `/v1.0/policies/${slow}`, { token })).body.threshold).to.equal(100);
    expect(await managed('policies', slow)).to.include({ managed: true, changed: false });

    // An object made in the console, which no applied document had, is not managed.
    const made = await svc.request('POST', '/v1.0/policies', {
      token,
      body: {
        ...policy('x', 1),
        title: 'Console',
        event_id: (await svc.request('GET', '/v1.0/events', { token })).body[0].event_id,
        key: undefined,
        event_definition: undefined,
      },
    });
    expect(made.status, made.text).to.equal(201);
    expect(await managed('policies', made.body.policy_id)).to.deep.equal({ managed: false });
    // Nor is another workspace's object, whatever its own applies.
    await apply(document(100), other);
    expect(await managed('policies', await idOf('/v1.0/policies', 'policy_id', 'slow', other))).to.deep.equal({ managed: false });
  });

  it('names a dimension declaration by its event name, and sees a PUT since the apply', async () => {
    const applied = await svc.request('POST', '/v1.0/config/apply', { token, body: { version: 1, dimensions: [{ event: 'latency', keys: ['route'] }] } });
    expect(applied.status, applied.text).to.equal(200);
    expect(await managed('dimensions', 'latency')).to.include({ managed: true, key: null, changed: false });
    expect(await managed('dimensions', 'other.name')).to.deep.equal({ managed: false });
    expect(await managed('dimensions', 'latency', other)).to.deep.equal({ managed: false });
    expect((await svc.request('PUT', '/v1.0/dimensions/latency', { token, body: { keys: ['code'] } })).status).to.equal(200);
    expect(await managed('dimensions', 'latency')).to.include({ managed: true, changed: true });
  });

  it('refuses an unknown kind or an id that is not a UUID with 400', async () => {
    for (const query of ['kind=widgets&id=0b6f7a3e-5d1c-4f8e-9a2b-3c4d5e6f7a8b', 'kind=policies&id=nope', 'kind=policies']) {
      const res = await svc.request('GET', `/v1.0/config/managed?${query}`, { token });
      expect(res.status, `${query}: ${res.text}`).to.equal(400);
    }
  });
});
