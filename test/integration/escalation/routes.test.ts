// /v1.0/escalation-policies and the policies' escalation_policy_id: validation (400 naming
// the field, nothing stored), another workspace's ids (404 / 400), PUT of a read object,
// DELETE refused while a policy names it.
import { expect } from 'chai';
import { newId } from '../../../src/ids.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { createEvent, createWebhook, ESCALATION_TEST_ENV, escalatingPolicy } from './helpers.js';

describe('escalation policies (routes)', function () {
  this.timeout(60_000);
  let svc: TestService;
  let token: string;
  let otherToken: string;
  let dest: string;
  let otherDest: string;
  const path = '/v1.0/escalation-policies';

  before(async function () {
    // Starting the service (the embedded ClickHouse first of all) can take minutes on a loaded machine.
    this.timeout(600_000);
    svc = await startTestService({ env: ESCALATION_TEST_ENV });
    token = await svc.tokenFor('esc-routes-ws');
    otherToken = await svc.tokenFor('esc-routes-other');
    dest = await createWebhook(svc, token, 'https://example.com/hook');
    otherDest = await createWebhook(svc, otherToken, 'https://example.com/other');
  });
  after(() => svc.close());

  const count = async () => (await svc.request<unknown[]>('GET', path, { token })).body.length;
  const valid = () => ({ name: 'Night shift', steps: [{ after_minutes: 5, destination_ids: [dest] }], repeat: 2 });

  it('creates, reads, lists (every item without limit), updates any subset and takes back what it read', async () => {
    const created = await svc.request('POST', path, { token, body: valid() });
    expect(created.status, created.text).to.equal(201);
    expect(created.body).to.include({ name: 'Night shift', repeat: 2 });
    expect(created.body.steps).to.deep.equal([{ after_minutes: 5, destination_ids: [dest], schedule_ids: [], person_ids: [] }]);
    expect(created.body.policy_ids).to.deep.equal([]);
    expect(created.body.created_at).to.match(/Z$/);
    const id = created.body.escalation_policy_id;

    expect((await svc.request('GET', `${path}/${id}`, { token })).body).to.deep.equal(created.body);
    const defaults = await svc.request('POST', path, { token, body: { name: 'No repeat', steps: [{ after_minutes: 1, destination_ids: [dest] }] } });
    expect(defaults.body.repeat).to.equal(0);
    const list = await svc.request('GET', path, { token });
    expect(list.body.map((p: { escalation_policy_id: string }) => p.escalation_policy_id)).to.deep.equal([defaults.body.escalation_policy_id, id]);

    const renamed = await svc.request('PUT', `${path}/${id}`, { token, body: { name: 'Day shift' } });
    expect(renamed.status).to.equal(200);
    expect(renamed.body).to.include({ name: 'Day shift', repeat: 2 });
    const readBack = await svc.request('PUT', `${path}/${id}`, { token, body: renamed.body });
    expect(readBack.status, readBack.text).to.equal(200);
    expect({ ...readBack.body, updated_at: null }).to.deep.equal({ ...renamed.body, updated_at: null });
  });

  it('refuses bad input with 400 naming the field, and stores nothing', async () => {
    const before = await count();
    const cases: [Record<string, unknown>, string][] = [
      [{ ...valid(), steps: [] }, '/steps'],
      [{ ...valid(), steps: Array.from({ length: 11 }, () => ({ after_minutes: 1, destination_ids: [dest] })) }, '/steps'],
      [{ ...valid(), steps: [{ after_minutes: 0, destination_ids: [dest] }] }, '/steps/0/after_minutes'],
      [{ ...valid(), steps: [{ after_minutes: 1441, destination_ids: [dest] }] }, '/steps/0/after_minutes'],
      [{ ...valid(), steps: [{ after_minutes: 1.5, destination_ids: [dest] }] }, '/steps/0/after_minutes'],
      // A step with no target at all (steps naming schedules and people: onCallSteps.test.ts).
      [{ ...valid(), steps: [{ after_minutes: 1, destination_ids: [] }] }, '/steps/0'],
      [{ ...valid(), steps: [{ after_minutes: 1, destination_ids: ['nope'] }] }, '/steps/0/destination_ids/0'],
      [{ ...valid(), steps: [{ after_minutes: 1, destination_ids: [dest, otherDest] }] }, '/steps/0/destination_ids/1'],
      [{ ...valid(), steps: [{ after_minutes: 1, destination_ids: [newId()] }] }, '/steps/0/destination_ids/0'],
      [{ ...valid(), repeat: 11 }, '/repeat'],
      [{ ...valid(), repeat: -1 }, '/repeat'],
      [{ ...valid(), name: '  ' }, '/name'],
      [{ ...valid(), name: 'x'.repeat(201) }, '/name'],
      [{ ...valid(), stpes: [] }, ''],
      [{ steps: valid().steps }, ''],
    ];
    for (const [body, field] of cases) {
      const res = await svc.request('POST', path, { token, body });
      expect(res.status, `${JSON.stringify(body).slice(0, 120)} → ${res.text}`).to.equal(400);
      if (field !== '') expect(res.body.error.details.map((d: { path: string }) => d.path).join(' '), res.text).to.include(field);
    }
    expect(await count()).to.equal(before);
  });

  it('answers 404 for another workspace’s escalation policy and 400 invalid_id for a malformed id', async () => {
    const mine = (await svc.request('POST', path, { token, body: valid() })).body.escalation_policy_id;
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { name: 'taken' }],
      ['DELETE', undefined],
    ] as const) {
      expect((await svc.request(method, `${path}/${mine}`, { token: otherToken, body })).status, method).to.equal(404);
    }
    expect((await svc.request('GET', `${path}/${mine}`, { token })).body.name).to.equal('Night shift');
    const malformed = await svc.request('GET', `${path}/nope`, { token });
    expect(malformed.status).to.equal(400);
    expect(malformed.body.error.code).to.equal('invalid_id');
  });

  it('lets a policy name it (404 when not the workspace’s), shows which do, and refuses to delete it while one does', async () => {
    const id = (await svc.request('POST', path, { token, body: valid() })).body.escalation_policy_id;
    const policyId = await escalatingPolicy(svc, token, id);
    const policy = await svc.request('GET', `/v1.0/policies/${policyId}`, { token });
    expect(policy.body.escalation_policy_id).to.equal(id);
    expect((await svc.request('GET', `${path}/${id}`, { token })).body.policy_ids).to.deep.equal([policyId]);

    const refused = await svc.request('DELETE', `${path}/${id}`, { token });
    expect(refused.status).to.equal(409);
    expect(refused.body.error.code).to.equal('escalation_policy_in_use');

    // Another workspace's escalation policy, or an unknown one, is not found for the policy either.
    const theirs = (await svc.request('POST', path, { token: otherToken, body: { ...valid(), steps: [{ after_minutes: 1, destination_ids: [otherDest] }] } }))
      .body.escalation_policy_id;
    for (const candidate of [theirs, newId()]) {
      expect((await svc.request('PUT', `/v1.0/policies/${policyId}`, { token, body: { escalation_policy_id: candidate } })).status).to.equal(404);
      const eventId = await createEvent(svc, token);
      const create = await svc.request('POST', '/v1.0/policies', {
        token,
        body: {
          event_id: eventId,
          title: 't',
          severity: 'info',
          period: 'minute',
          aggregate: 'count',
          condition: 'gt',
          threshold: 1,
          escalation_policy_id: candidate,
        },
      });
      expect(create.status).to.equal(404);
    }
    expect((await svc.request('GET', `/v1.0/policies/${policyId}`, { token })).body.escalation_policy_id).to.equal(id);

    // A PUT of the read policy keeps it; null detaches it, and then it can be deleted.
    expect((await svc.request('PUT', `/v1.0/policies/${policyId}`, { token, body: policy.body })).status).to.equal(200);
    const detached = await svc.request('PUT', `/v1.0/policies/${policyId}`, { token, body: { escalation_policy_id: null } });
    expect(detached.body.escalation_policy_id).to.equal(null);
    expect((await svc.request('DELETE', `${path}/${id}`, { token })).status).to.equal(204);
    expect((await svc.request('GET', `${path}/${id}`, { token })).status).to.equal(404);
  });
});
