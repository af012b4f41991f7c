// The silences API: create, list (every silence without limit), read, update, delete, each
// scoped to the workspace, and a clear 400 that changes nothing for every bad input.
import { expect } from 'chai';
import { seedPolicy, type SeededPolicy } from '../../helpers/outbox.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const HOUR_MS = 3_600_000;
const inHours = (hours: number) => new Date(Date.now() + hours * HOUR_MS).toISOString();

describe('silences API', function () {
  this.timeout(60_000);
  let svc: TestService;
  let token: string;
  let otherToken: string;
  let policy: SeededPolicy;
  let otherPolicy: SeededPolicy;

  before(async () => {
    svc = await startTestService({ env: { ROLE: 'api', WORKSPACE_MAX_SILENCES: '150' } });
    token = await svc.tokenFor('silences-ws');
    otherToken = await svc.tokenFor('silences-other');
    policy = await seedPolicy(svc.stores.postgres, 'silences-ws');
    otherPolicy = await seedPolicy(svc.stores.postgres, 'silences-other');
  });
  after(() => svc.close());

  const create = (body: object, as = token) => svc.request('POST', '/v1.0/silences', { token: as, body });
  const count = async (as = token) => (await svc.request('GET', '/v1.0/silences', { token: as })).body.length as number;
  const expectInvalid = async (body: object, path: string) => {
    const before = await count();
    const res = await create(body);
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error.code).to.equal('validation_failed');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).to.include(path);
    expect(await count()).to.equal(before);
  };

  it('creates, reads, updates and deletes a silence', async () => {
    const recurrence = { timezone: 'Europe/Berlin', days: ['sat', 'sun'], start: '22:00', end: '06:00' };
    const created = await create({ policy_ids: [policy.policyId.toUpperCase()], ends_at: inHours(48), comment: 'weekend nights', recurrence });
    expect(created.status, created.text).to.equal(201);
    const silence = created.body;
    expect(silence).to.include({ comment: 'weekend nights' });
    expect(silence.silence_id).to.match(/^[0-9a-f-]{36}$/);
    expect(silence.policy_ids).to.deep.equal([policy.policyId]);
    expect(silence.recurrence).to.deep.equal(recurrence);
    expect(silence.active).to.be.a('boolean');
    for (const field of ['starts_at', 'ends_at', 'created_at', 'updated_at']) expect(silence[field]).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const read = await svc.request('GET', `/v1.0/silences/${silence.silence_id}`, { token });
    expect(read.body).to.deep.equal(silence);

    // PUT takes any subset, and what was read back (read-only fields ignored).
    const put = await svc.request('PUT', `/v1.0/silences/${silence.silence_id}`, { token, body: { ...silence, comment: 'changed', recurrence: null } });
    expect(put.status, put.text).to.equal(200);
    expect(put.body).to.include({ silence_id: silence.silence_id, comment: 'changed', recurrence: null, created_at: silence.created_at });
    const everyPolicy = await svc.request('PUT', `/v1.0/silences/${silence.silence_id}`, { token, body: { policy_ids: null } });
    expect(everyPolicy.body.policy_ids).to.equal(null);
    expect(everyPolicy.body.comment).to.equal('changed');

    const deleted = await svc.request('DELETE', `/v1.0/silences/${silence.silence_id}`, { token });
    expect(deleted.status).to.equal(204);
    expect((await svc.request('GET', `/v1.0/silences/${silence.silence_id}`, { token })).status).to.equal(404);
    expect((await svc.request('DELETE', `/v1.0/silences/${silence.silence_id}`, { token })).status).to.equal(404);
  });

  it('defaults starts_at to now, every policy, no comment and no recurrence', async () => {
    const res = await create({ ends_at: inHours(1) });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ policy_ids: null, comment: '', recurrence: null, active: true });
    expect(Math.abs(Date.parse(res.body.starts_at) - Date.now())).to.be.below(60_000);
  });

  it('lists every silence without limit, newest first, and pages with limit and offset', async () => {
    const ws = 'silences-many';
    const many = await svc.tokenFor(ws);
    for (let i = 0; i < 120; i++) expect((await create({ ends_at: inHours(1), comment: `n${i}` }, many)).status).to.equal(201);
    const all = (await svc.request('GET', '/v1.0/silences', { token: many })).body;
    expect(all).to.have.length(120);
    expect(all[0].comment).to.equal('n119');
    expect(all[119].comment).to.equal('n0');
    const page = (await svc.request('GET', '/v1.0/silences?limit=10&offset=5', { token: many })).body;
    expect(page.map((s: { comment: string }) => s.comment)).to.deep.equal(all.slice(5, 15).map((s: { comment: string }) => s.comment));
    for (const bad of ['limit=-1', 'limit=1001', 'limit=1.5', 'offset=-1', 'limit=ten']) {
      const res = await svc.request('GET', `/v1.0/silences?${bad}`, { token: many });
      expect(res.status, bad).to.equal(400);
    }
  });

  it('refuses a silence past the workspace limit with 409', async () => {
    const limited = await svc.tokenFor('silences-limited');
    for (let i = 0; i < 150; i++) expect((await create({ ends_at: inHours(1) }, limited)).status).to.equal(201);
    const res = await create({ ends_at: inHours(1) }, limited);
    expect(res.status).to.equal(409);
    expect(res.body.error.code).to.equal('silence_limit_reached');
    expect(await count(limited)).to.equal(150);
  });

  it('refuses bad times, windows and timezones with 400 naming the field', async () => {
    const window = { timezone: 'Europe/Berlin', days: ['mon'], start: '01:00', end: '03:00' };
    await expectInvalid({}, '/ends_at');
    await expectInvalid({ ends_at: inHours(-1) }, '/ends_at');
    await expectInvalid({ starts_at: inHours(3), ends_at: inHours(2) }, '/ends_at');
    await expectInvalid({ starts_at: inHours(2), ends_at: inHours(2) }, '/ends_at');
    await expectInvalid({ ends_at: 'tomorrow' }, '/ends_at');
    await expectInvalid({ ends_at: '2026-13-01T00:00:00Z' }, '/ends_at');
    await expectInvalid({ ends_at: '10000-01-01T00:00:00Z' }, '/ends_at');
    await expectInvalid({ starts_at: '0000-01-01T00:00:00Z', ends_at: inHours(1) }, '/starts_at');
    await expectInvalid({ ends_at: inHours(1), recurrence: { ...window, timezone: 'Mars/Olympus' } }, '/recurrence/timezone');
    await expectInvalid({ ends_at: inHours(1), recurrence: { ...window, timezone: 'europe/berlin' } }, '/recurrence/timezone');
    await expectInvalid({ ends_at: inHours(1), recurrence: { ...window, start: '24:00' } }, '/recurrence/start');
    await expectInvalid({ ends_at: inHours(1), recurrence: { ...window, end: '3:00' } }, '/recurrence/end');
    await expectInvalid({ ends_at: inHours(1), recurrence: { ...window, end: '01:00' } }, '/recurrence/end');
    await expectInvalid({ ends_at: inHours(1), recurrence: { ...window, days: [] } }, '/recurrence/days');
    await expectInvalid({ ends_at: inHours(1), recurrence: { ...window, days: ['mon', 'mon'] } }, '/recurrence/days');
    await expectInvalid({ ends_at: inHours(1), recurrence: { ...window, days: ['monday'] } }, '/recurrence/days/0');
    await expectInvalid({ ends_at: inHours(1), recurrence: { timezone: 'UTC' } }, '/recurrence/days');
    await expectInvalid({ ends_at: inHours(1), recurrence: { ...window, extra: 1 } }, '/recurrence/extra');
    await expectInvalid({ ends_at: inHours(1), policy_ids: [] }, '/policy_ids');
    await expectInvalid({ ends_at: inHours(1), policy_ids: ['not-a-uuid'] }, '/policy_ids/0');
    await expectInvalid({ ends_at: inHours(1), policy_ids: [policy.policyId, otherPolicy.policyId] }, '/policy_ids/1');
    await expectInvalid({ ends_at: inHours(1), comment: 'x'.repeat(1001) }, '/comment');
    await expectInvalid({ ends_at: inHours(1), valeu: 1 }, '/valeu');
  });

  it('refuses huge, nested, badly encoded and non-finite input without a 500', async () => {
    const before = await count();
    const huge = await create({ ends_at: inHours(1), comment: 'x'.repeat(1_100_000) });
    expect(huge.status).to.equal(413);
    const many = await create({ ends_at: inHours(1), policy_ids: Array.from({ length: 1001 }, () => policy.policyId) });
    expect(many.status).to.equal(400);
    const raw = (text: string) => svc.request('POST', '/v1.0/silences', { token, rawBody: text, headers: { 'content-type': 'application/json' } });
    const depth = 100_000;
    for (const text of [
      `{"ends_at": "${inHours(1)}", "policy_ids": ${'['.repeat(depth)}"${policy.policyId}"${']'.repeat(depth)}}`,
      `{"ends_at": "${inHours(1)}", "recurrence": ${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`,
      `{"ends_at": "${inHours(1)}", "comment": 1e400}`,
      `{"ends_at": 1e400}`,
      `{"ends_at": "${inHours(1)}", "comment": "\\ud800"}`,
      `{"ends_at": "${inHours(1)}", "comment": "a\\u0000b"}`,
      '{"ends_at": ',
      '[]',
      'null',
    ]) {
      const res = await raw(text);
      expect(res.status, text.slice(0, 80)).to.equal(400);
      expect(res.body.error.code, text.slice(0, 80)).to.be.a('string');
    }
    const textBody = await svc.request('POST', '/v1.0/silences', { token, rawBody: 'ends_at=tomorrow', headers: { 'content-type': 'text/plain' } });
    expect(textBody.status).to.equal(415);
    expect(await count()).to.equal(before);
  });

  it('refuses a bad update and changes nothing', async () => {
    const { body: silence } = await create({ ends_at: inHours(5), comment: 'keep' });
    const put = (body: object) => svc.request('PUT', `/v1.0/silences/${silence.silence_id}`, { token, body });
    for (const body of [
      { ends_at: silence.starts_at },
      { starts_at: inHours(6) },
      { policy_ids: [otherPolicy.policyId] },
      { policy_ids: [] },
      { commnet: 'x' },
    ]) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
    }
    expect((await svc.request('GET', `/v1.0/silences/${silence.silence_id}`, { token })).body).to.deep.equal({ ...silence, active: true });
    // Ending it early is allowed: an ends_at of now.
    const ended = await put({ ends_at: new Date(Date.now() + 1).toISOString() });
    expect(ended.status, ended.text).to.equal(200);
    expect((await svc.request('PUT', '/v1.0/silences/not-a-uuid', { token, body: {} })).status).to.equal(400);
  });

  it("keeps each workspace's silences to itself", async () => {
    const { body: mine } = await create({ ends_at: inHours(2), policy_ids: [policy.policyId] });
    const path = `/v1.0/silences/${mine.silence_id}`;
    expect((await svc.request('GET', path, { token: otherToken })).status).to.equal(404);
    expect((await svc.request('PUT', path, { token: otherToken, body: { comment: 'mine now' } })).status).to.equal(404);
    expect((await svc.request('DELETE', path, { token: otherToken })).status).to.equal(404);
    const theirs = (await svc.request('GET', '/v1.0/silences', { token: otherToken })).body;
    expect(theirs.map((s: { silence_id: string }) => s.silence_id)).to.not.include(mine.silence_id);
    expect((await svc.request('GET', path, { token })).body.comment).to.equal('');
    expect((await svc.request('GET', '/v1.0/silences/0b7e4c4e-0000-4000-8000-000000000000', { token })).status).to.equal(404);
    expect((await svc.request('GET', '/v1.0/silences/nope', { token })).body.error.code).to.equal('invalid_id');
    expect((await svc.request('GET', '/v1.0/silences', { token: null })).status).to.equal(401);
  });
});
