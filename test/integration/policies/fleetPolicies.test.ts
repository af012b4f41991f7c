// Fleet policies through the API (docs/api.md, Fleet policies): the fields, their defaults,
// switching between the two kinds, the limit, and bad input on every new field as a careless
// client and an attacker would send it: a clear 4xx, and nothing changed.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('fleet policies API', function () {
  this.timeout(120_000);
  let svc: TestService;
  let token: string;
  let otherToken: string;
  let eventId: string;

  before(async () => {
    svc = await startTestService({ env: { EVAL_INTERVAL_MS: '86400000', WORKSPACE_MAX_POLICIES: '6' } });
    token = await svc.tokenFor('fleet-api-ws');
    otherToken = await svc.tokenFor('fleet-api-other-ws');
    eventId = (await svc.request('POST', '/v1.0/events', { token, body: { event: 'task.duration_ms', agent: 'worker-1' } })).body.event_id;
    await svc.request('POST', '/v1.0/events', { token, body: { event: 'task.duration_ms', agent: 'worker-2' } });
    await svc.request('POST', '/v1.0/events', { token: otherToken, body: { event: 'their.secret_event', agent: 'x' } });
  });
  after(() => svc.close());

  const rule = { title: 'Slow tasks', period: 'minute', aggregate: 'p95_est', condition: 'gt', threshold: 900, severity: 'warning' };
  const create = (body: unknown, as = token) => svc.request('POST', '/v1.0/policies', { token: as, body });
  const policies = async () => (await svc.request<unknown[]>('GET', '/v1.0/policies', { token })).body;

  it('creates a fleet policy with its defaults, reads it back, and accepts it sent back whole', async () => {
    const res = await create({ ...rule, event: 'task.duration_ms' });
    expect(res.status).to.equal(201);
    expect(res.body).to.include({ event_id: null, event: 'task.duration_ms', timezone: 'UTC' });
    expect(res.body.agents).to.deep.equal(['*']);
    expect(res.body.filter).to.deep.equal({});
    expect(res.body.group_by).to.deep.equal([]);
    const read = await svc.request('GET', `/v1.0/policies/${res.body.policy_id}`, { token });
    expect(read.body).to.deep.equal(res.body);
    const back = await svc.request('PUT', `/v1.0/policies/${res.body.policy_id}`, { token, body: read.body });
    expect(back.status).to.equal(200);
    const full = await create({
      ...rule,
      event: 'task.duration_ms',
      agents: ['worker-*', 'batch-?'],
      filter: { agent: ['worker-1', 'worker-2'] },
      group_by: ['agent'],
      timezone: 'Europe/Berlin',
    });
    expect(full.status).to.equal(201);
    expect(full.body).to.deep.include({
      agents: ['worker-*', 'batch-?'],
      filter: { agent: ['worker-1', 'worker-2'] },
      group_by: ['agent'],
      timezone: 'Europe/Berlin',
    });
    // A policy on one definition shows the fleet fields' defaults and takes them back.
    const single = await create({ ...rule, event_id: eventId });
    expect(single.body).to.deep.include({ event: null, agents: ['*'], filter: {}, group_by: [], timezone: null });
    expect((await svc.request('PUT', `/v1.0/policies/${single.body.policy_id}`, { token, body: single.body })).status).to.equal(200);
  });

  it('switches a policy between one definition and a fleet', async () => {
    const single = (await create({ ...rule, event_id: eventId })).body;
    const fleet = await svc.request('PUT', `/v1.0/policies/${single.policy_id}`, { token, body: { event: 'task.duration_ms', group_by: ['agent'] } });
    expect(fleet.status).to.equal(200);
    expect(fleet.body).to.deep.include({ event_id: null, event: 'task.duration_ms', group_by: ['agent'], timezone: 'UTC' });
    const back = await svc.request('PUT', `/v1.0/policies/${single.policy_id}`, { token, body: { event_id: eventId } });
    expect(back.status).to.equal(200);
    expect(back.body).to.deep.include({ event_id: eventId, event: null, group_by: [], agents: ['*'], filter: {}, timezone: null });
    await svc.request('DELETE', `/v1.0/policies/${single.policy_id}`, { token });
  });

  it('refuses bad input on every fleet field with a 4xx naming it, and changes nothing', async () => {
    const before = await policies();
    const fleet = { ...rule, event: 'task.duration_ms' };
    const manyKeys = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 'v']));
    const cases: [unknown, number, string][] = [
      [{ ...rule }, 400, '/event_id'],
      [{ ...fleet, event_id: eventId }, 400, '/event'],
      [{ ...fleet, event: '' }, 400, '/event'],
      [{ ...fleet, event: 'a\u0000b' }, 400, '/event'],
      [{ ...fleet, event: 'x'.repeat(5000) }, 400, '/event'],
      [{ ...fleet, event: 'their.secret_event' }, 404, ''],
      [{ ...fleet, event: 'never.sent' }, 404, ''],
      [{ ...fleet, event: { $gt: '' } }, 400, '/event'],
      [{ ...fleet, agents: [] }, 400, '/agents'],
      [{ ...fleet, agents: '*' }, 400, '/agents'],
      [{ ...fleet, agents: ['*'.repeat(201)] }, 400, '/agents/0'],
      [{ ...fleet, agents: Array.from({ length: 101 }, () => '*') }, 400, '/agents'],
      [{ ...fleet, agents: ['web\u0000'] }, 400, '/agents/0'],
      [{ ...fleet, agents: [['nested']] }, 400, '/agents/0'],
      [{ ...fleet, filter: manyKeys }, 400, '/filter'],
      [{ ...fleet, filter: { route: '/checkout' } }, 400, '/filter/route'],
      [{ ...fleet, filter: { agent: 'x'.repeat(2000) } }, 400, '/filter/agent'],
      [{ ...fleet, filter: { agent: [] } }, 400, '/filter/agent'],
      [{ ...fleet, filter: { agent: { a: { b: 1 } } } }, 400, '/filter/agent'],
      [{ ...fleet, filter: { 'bad key!': 'v' } }, 400, '/filter'],
      [{ ...fleet, filter: ['agent'] }, 400, '/filter'],
      [{ ...fleet, group_by: ['route'] }, 400, '/group_by/0'],
      [{ ...fleet, group_by: ['agent', 'agent'] }, 400, '/group_by'],
      [{ ...fleet, group_by: Array.from({ length: 64 }, (_, i) => `key${i}`) }, 400, '/group_by'],
      [{ ...fleet, group_by: 'agent' }, 400, '/group_by'],
      [{ ...fleet, timezone: 'Mars/Olympus' }, 400, '/timezone'],
      [{ ...fleet, timezone: 'Europe/Berlin\u0000' }, 400, '/timezone'],
      [{ ...rule, event_id: eventId, group_by: ['agent'] }, 400, '/group_by'],
      [{ ...rule, event_id: eventId, agents: ['web-*'] }, 400, '/agents'],
      [{ ...rule, event_id: eventId, timezone: 'UTC' }, 400, '/timezone'],
    ];
    for (const [body, status, path] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body).slice(0, 120)).to.equal(status);
      if (status === 400)
        expect(
          res.body.error.details.map((d: { path: string }) => d.path),
          JSON.stringify(body).slice(0, 120),
        ).to.include(path);
    }
    // The same through PUT on a fleet policy, which stays as it was.
    const made = (await create({ ...fleet, group_by: ['agent'] })).body;
    for (const [body, status] of cases.slice(1)) {
      const { title: _t, period: _p, aggregate: _a, condition: _c, threshold: _th, severity: _s, ...changes } = body as Record<string, unknown>;
      if (Object.keys(changes).length === 0) continue;
      const res = await svc.request('PUT', `/v1.0/policies/${made.policy_id}`, { token, body: changes });
      expect(res.status, JSON.stringify(changes).slice(0, 120)).to.be.oneOf([status, 400]);
    }
    expect((await svc.request('GET', `/v1.0/policies/${made.policy_id}`, { token })).body).to.deep.equal(made);
    await svc.request('DELETE', `/v1.0/policies/${made.policy_id}`, { token });
    expect(await policies()).to.deep.equal(before);
  });

  it("accepts a pattern of stars as any agent, and does not evaluate another workspace's records", async () => {
    const res = await create({ ...rule, event: 'task.duration_ms', agents: ['*'.repeat(200)] });
    expect(res.status).to.equal(201);
    const other = await create({ ...rule, event: 'task.duration_ms' }, otherToken);
    expect(other.status).to.equal(404);
    await svc.request('DELETE', `/v1.0/policies/${res.body.policy_id}`, { token });
  });

  it('counts a fleet policy once against WORKSPACE_MAX_POLICIES', async () => {
    const made: string[] = [];
    for (let i = (await policies()).length; i < 6; i++) made.push((await create({ ...rule, event: 'task.duration_ms', group_by: ['agent'] })).body.policy_id);
    const over = await create({ ...rule, event: 'task.duration_ms' });
    expect(over.status).to.equal(409);
    expect(over.body.error.code).to.equal('policy_limit_reached');
    for (const id of made) await svc.request('DELETE', `/v1.0/policies/${id}`, { token });
  });
});
