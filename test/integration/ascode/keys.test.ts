// Keys (docs/as-code.md) on every kind of configuration object: set on create or PUT, returned,
// unique per workspace and kind (409 key_taken, nothing changed), free across workspaces.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('keys on configuration objects', function () {
  this.timeout(120_000);
  let svc: TestService;
  let token: string;
  let other: string;
  let eventId: string;

  before(async function () {
    this.timeout(600_000);
    svc = await startTestService();
    token = await svc.tokenFor('keys-ws');
    other = await svc.tokenFor('keys-other-ws');
    eventId = (await svc.request('POST', '/v1.0/events', { token, body: { event: 'latency', agent: 'web' } })).body.event_id;
  });
  after(async () => svc?.close());

  const post = async (path: string, body: object, as = token) => {
    const res = await svc.request('POST', path, { token: as, body });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };

  it('is set on create, returned, changed and cleared by PUT, on every kind', async () => {
    const dest = await post('/v1.0/destinations', { key: 'hook', channel: 'webhook', url: 'https://example.com/hook' });
    const person = await post('/v1.0/people', { key: 'ada', name: 'Ada', destination_ids: [dest.destination_id] });
    const start = new Date(Date.now() - 86_400_000).toISOString();
    const schedule = await post('/v1.0/schedules', {
      key: 'db',
      name: 'DB',
      timezone: 'UTC',
      layers: [{ name: 'primary', start, rotation: { type: 'daily', handoff: '09:00' }, members: [person.person_id] }],
    });
    const esc = await post('/v1.0/escalation-policies', { key: 'page', name: 'Page', steps: [{ after_minutes: 5, destination_ids: [dest.destination_id] }] });
    const source = await post('/v1.0/alert-sources', { key: 'prom', name: 'Prometheus' });
    const policy = await post('/v1.0/policies', {
      key: 'slow',
      event_id: eventId,
      title: 'Slow',
      period: 'minute',
      aggregate: 'average',
      condition: 'gt',
      threshold: 1,
      severity: 'warning',
    });
    const silence = await post('/v1.0/silences', { key: 'window', ends_at: new Date(Date.now() + 3_600_000).toISOString() });
    const objects: [string, string, string][] = [
      ['/v1.0/destinations', dest.destination_id, 'hook'],
      ['/v1.0/people', person.person_id, 'ada'],
      ['/v1.0/schedules', schedule.schedule_id, 'db'],
      ['/v1.0/escalation-policies', esc.escalation_policy_id, 'page'],
      ['/v1.0/alert-sources', source.alert_source_id, 'prom'],
      ['/v1.0/policies', policy.policy_id, 'slow'],
      ['/v1.0/silences', silence.silence_id, 'window'],
    ];
    for (const [path, id, key] of objects) {
      const read = await svc.request('GET', `${path}/${id}`, { token });
      expect(read.body.key, path).to.equal(key);
      const renamed = await svc.request('PUT', `${path}/${id}`, { token, body: { key: `${key}-2` } });
      expect(renamed.status, renamed.text).to.equal(200);
      expect(renamed.body.key).to.equal(`${key}-2`);
      expect((await svc.request('GET', `${path}/${id}`, { token })).body.key).to.equal(`${key}-2`);
      const list = await svc.request('GET', path, { token });
      expect(list.body.map((o: { key: string }) => o.key)).to.include(`${key}-2`);
      const cleared = await svc.request('PUT', `${path}/${id}`, { token, body: { key: null } });
      expect(cleared.body.key, path).to.equal(null);
      await svc.request('PUT', `${path}/${id}`, { token, body: { key } });
    }
  });

  it('is unique per workspace and kind: 409 key_taken, and nothing is created or changed', async () => {
    const before = (await svc.request('GET', '/v1.0/silences', { token })).body.length;
    const dup = await svc.request('POST', '/v1.0/silences', { token, body: { key: 'window', ends_at: new Date(Date.now() + 3_600_000).toISOString() } });
    expect(dup.status, dup.text).to.equal(409);
    expect(dup.body.error.code).to.equal('key_taken');
    expect((await svc.request('GET', '/v1.0/silences', { token })).body.length).to.equal(before);

    const second = await post('/v1.0/silences', { key: 'other', comment: 'keep', ends_at: new Date(Date.now() + 3_600_000).toISOString() });
    const put = await svc.request('PUT', `/v1.0/silences/${second.silence_id}`, { token, body: { key: 'window', comment: 'changed' } });
    expect(put.status).to.equal(409);
    expect(put.body.error.code).to.equal('key_taken');
    const read = (await svc.request('GET', `/v1.0/silences/${second.silence_id}`, { token })).body;
    expect([read.key, read.comment]).to.deep.equal(['other', 'keep']);
  });

  it('is free across kinds and across workspaces', async () => {
    await post('/v1.0/alert-sources', { key: 'window', name: 'Same key, other kind' });
    await post('/v1.0/silences', { key: 'window', ends_at: new Date(Date.now() + 3_600_000).toISOString() }, other);
  });

  it('is 1-64 characters of a-z, 0-9, _ and -', async () => {
    for (const key of ['', 'Upper', 'a b', 'x'.repeat(65), 'é']) {
      const res = await svc.request('POST', '/v1.0/alert-sources', { token, body: { key, name: 'bad' } });
      expect(res.status, JSON.stringify(key)).to.equal(400);
      expect(res.body.error.details[0].path).to.equal('/key');
    }
  });
});
