import { expect } from 'chai';
import { eventIdOf, sendLogs, storedLogCount } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('event definitions API', function () {
  this.timeout(60_000);
  let svc: TestService;
  let token: string;
  let otherToken: string;
  before(async () => {
    svc = await startTestService();
    token = await svc.tokenFor('events-ws');
    otherToken = await svc.tokenFor('events-other-ws');
  });
  after(() => svc.close());

  const create = (body: unknown, as = token) => svc.request('POST', '/v1.0/events', { token: as, body });

  it('creates a definition with the documented defaults', async () => {
    const res = await create({ event: '  queue.depth_items ' });
    expect(res.status).to.equal(201);
    expect(res.body).to.include({
      event: 'queue.depth_items',
      agent: 'default',
      title: null,
      description: '',
      unit: '',
      timezone: 'UTC',
      public: false,
      user_id: 'events-ws',
    });
    expect(res.body.event_id).to.match(/^[0-9a-f-]{36}$/);
    expect(res.body.share_token).to.match(/^[A-Za-z0-9_-]{22,}$/);
    expect(res.body.created_at).to.match(ISO_MS);
    expect((await svc.request('GET', `/v1.0/events/${res.body.event_id}`, { token })).body).to.deep.equal(res.body);
  });

  it('keeps every given field, including an optional title', async () => {
    const body = { event: 'disk.used_pct', agent: 'db-1', title: 'Disk used', description: 'Root volume', unit: '%', timezone: 'Asia/Kolkata', public: true };
    const res = await create(body);
    expect(res.status).to.equal(201);
    expect(res.body).to.include(body);
  });

  it('refuses an existing pair with 409, also one that logs created', async () => {
    await create({ event: 'twice', agent: 'a' });
    expect((await create({ event: 'twice', agent: 'a' })).status).to.equal(409);
    await sendLogs(svc, token, [{ agent: 'logger', event: 'from.logs', value: 1 }]);
    const res = await create({ event: 'from.logs', agent: 'logger' });
    expect(res.status).to.equal(409);
    expect(res.body.error.code).to.equal('event_exists');
    // Another workspace may use the same pair.
    expect((await create({ event: 'twice', agent: 'a' }, otherToken)).status).to.equal(201);
  });

  it('refuses bad bodies with 400: no event, unknown field, unknown timezone', async () => {
    for (const [body, path] of [
      [{ agent: 'x' }, '/event'],
      [{ event: '   ' }, '/event'],
      [{ event: 'e', descripton: 'typo' }, '/descripton'],
      [{ event: 'e', timezone: 'Mars/Olympus_Mons' }, '/timezone'],
      [{ event: 'e', timezone: 'utc' }, '/timezone'],
      [{ event: 'e', public: 'yes' }, '/public'],
    ] as const) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(
        res.body.error.details.map((d: { path: string }) => d.path),
        JSON.stringify(body),
      ).to.include(path);
    }
  });

  it('lists newest first, with limit and offset, only the own workspace', async () => {
    const fresh = await svc.tokenFor('events-list-ws');
    for (const name of ['one', 'two', 'three']) await create({ event: name }, fresh);
    const all = await svc.request('GET', '/v1.0/events', { token: fresh });
    expect(all.body.map((d: { event: string }) => d.event)).to.deep.equal(['three', 'two', 'one']);
    const page = await svc.request('GET', '/v1.0/events?limit=1&offset=1', { token: fresh });
    expect(page.body.map((d: { event: string }) => d.event)).to.deep.equal(['two']);
    for (const query of ['limit=1001', 'limit=-1', 'offset=-5', 'limit=2.5', 'offset=abc']) {
      expect((await svc.request('GET', `/v1.0/events?${query}`, { token: fresh })).status, query).to.equal(400);
    }
  });

  it("answers 404 for another workspace's definition, and 400 invalid_id for a non-UUID", async () => {
    const mine = (await create({ event: 'private.thing' })).body.event_id;
    for (const [method, path] of [
      ['GET', `/v1.0/events/${mine}`],
      ['PUT', `/v1.0/events/${mine}`],
      ['GET', `/v1.0/events/${mine}/logs?period=hour`],
    ] as const) {
      const res = await svc.request(method, path, { token: otherToken, body: method === 'PUT' ? { title: 'stolen' } : undefined });
      expect(res.status, `${method} ${path}`).to.equal(404);
      expect(JSON.stringify(res.body)).not.to.include('private.thing');
    }
    expect((await svc.request('GET', `/v1.0/events/${mine}`, { token })).body.title).to.equal(null);
    const bad = await svc.request('GET', '/v1.0/events/not-a-uuid', { token });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.code).to.equal('invalid_id');
    expect((await svc.request('GET', '/v1.0/events/00000000-0000-4000-8000-000000000000', { token })).status).to.equal(404);
  });

  it('updates the editable fields and ignores read-only ones sent back', async () => {
    const created = (await create({ event: 'editable', agent: 'ed' })).body;
    const res = await svc.request('PUT', `/v1.0/events/${created.event_id}`, {
      token,
      body: { ...created, title: 'Edited', description: 'now described', unit: 'ms', public: true, event_id: 'ignored', share_token: 'ignored' },
    });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({
      event_id: created.event_id,
      share_token: created.share_token,
      title: 'Edited',
      description: 'now described',
      unit: 'ms',
      public: true,
    });
    expect(Date.parse(res.body.updated_at)).to.be.at.least(Date.parse(created.updated_at));
    const onlyTitle = await svc.request('PUT', `/v1.0/events/${created.event_id}`, { token, body: { title: 'Just the title' } });
    expect(onlyTitle.body).to.include({ title: 'Just the title', description: 'now described' });
  });

  it('refuses to rename the event, an unknown field, and an agent that collides', async () => {
    const a = (await create({ event: 'pair', agent: 'first' })).body;
    await create({ event: 'pair', agent: 'second' });
    const rename = await svc.request('PUT', `/v1.0/events/${a.event_id}`, { token, body: { event: 'other' } });
    expect(rename.status).to.equal(400);
    expect(rename.body.error.details[0].path).to.equal('/event');
    expect((await svc.request('PUT', `/v1.0/events/${a.event_id}`, { token, body: { titel: 'x' } })).status).to.equal(400);
    const collide = await svc.request('PUT', `/v1.0/events/${a.event_id}`, { token, body: { agent: 'second' } });
    expect(collide.status).to.equal(409);
    expect((await svc.request('GET', `/v1.0/events/${a.event_id}`, { token })).body.agent).to.equal('first');
  });

  it('routes logs by the new agent name after a rename', async () => {
    const t = await svc.tokenFor('events-rename-ws');
    await sendLogs(svc, t, [{ agent: 'old', event: 'moved', value: 1 }]);
    const id = await eventIdOf(svc, t, 'old', 'moved');
    expect((await svc.request('PUT', `/v1.0/events/${id}`, { token: t, body: { agent: 'new' } })).status).to.equal(200);
    await sendLogs(svc, t, [
      { agent: 'new', event: 'moved', value: 2 },
      { agent: 'old', event: 'moved', value: 3 },
    ]);
    expect(await eventIdOf(svc, t, 'new', 'moved')).to.equal(id);
    expect(await eventIdOf(svc, t, 'old', 'moved')).to.not.equal(id);
    const hour = await svc.request('GET', `/v1.0/events/${id}/logs?period=hour`, { token: t });
    expect(hour.body[0]).to.include({ agent: 'new', count: 2, value: 3 });
    expect(await storedLogCount(svc.stores.clickhouse, 'events-rename-ws')).to.equal(3);
  });
});

describe('planes and roles', function () {
  this.timeout(60_000);
  let svc: TestService;
  after(() => svc?.close());

  it('serves logs on LOGS_PORT, and only logs there', async () => {
    svc = await startTestService({ env: { LOGS_PORT: '0' } });
    const token = await svc.tokenFor('planes-ws');
    await sendLogs(svc, token, [{ event: 'via.logs.port', value: 1 }], svc.logsUrl!);
    expect(await storedLogCount(svc.stores.clickhouse, 'planes-ws')).to.equal(1);
    expect((await svc.requestTo(svc.logsUrl!, 'GET', '/v1.0/events', { token })).status).to.equal(404);
    expect((await svc.requestTo(svc.logsUrl!, 'POST', '/v1.0/admin/tokens', { token, body: { user_id: 'x' } })).status).to.equal(404);
    await svc.close();
  });

  it('serves only the control plane with ROLE=api and only logs with ROLE=ingest', async () => {
    svc = await startTestService({ env: { ROLE: 'api' } });
    const token = await svc.tokenFor('roles-ws');
    expect((await svc.request('GET', '/v1.0/events', { token })).status).to.equal(200);
    expect((await svc.request('POST', '/v1.0/logs', { token, body: [{ event: 'e', value: 1 }] })).status).to.equal(404);
    const options = svc.storeOptions;
    await svc.close();
    svc = await startTestService({ env: { ROLE: 'ingest' }, storeOptions: options });
    expect((await svc.request('POST', '/v1.0/logs', { token, body: [{ event: 'e', value: 1 }] })).status).to.equal(200);
    expect((await svc.request('GET', '/v1.0/events', { token })).status).to.equal(404);
  });
});
