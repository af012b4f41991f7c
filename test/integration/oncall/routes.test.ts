// /v1.0/people and /v1.0/schedules (+ overrides, on-call, shifts): validation (400 naming the
// field, nothing stored), another workspace's ids, PUT of a read object, 409 on a person in use.
import { expect } from 'chai';
import { newId } from '../../../src/ids.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { createDestination, createPerson, createSchedule, dailySchedule } from './helpers.js';

describe('on-call schedules (routes)', function () {
  this.timeout(60_000);
  let svc: TestService;
  let token: string;
  let otherToken: string;
  let dest: string;
  let otherDest: string;
  let ada: string;
  let bo: string;
  let otherPerson: string;

  before(async function () {
    this.timeout(600_000);
    svc = await startTestService();
    token = await svc.tokenFor('oncall-routes-ws');
    otherToken = await svc.tokenFor('oncall-routes-other');
    dest = await createDestination(svc, token);
    otherDest = await createDestination(svc, otherToken);
    ada = await createPerson(svc, token, 'Ada', dest);
    bo = await createPerson(svc, token, 'Bo', dest);
    otherPerson = await createPerson(svc, otherToken, 'Zed', otherDest);
  });
  after(() => svc.close());

  const expect400 = async (method: string, path: string, body: unknown, field: string) => {
    const res = await svc.request(method, path, { token, body });
    expect(res.status, `${JSON.stringify(body).slice(0, 160)} → ${res.text}`).to.equal(400);
    if (field !== '') expect(res.body.error.details.map((d: { path: string }) => d.path).join(' '), res.text).to.include(field);
  };

  it('creates, reads, lists, updates people and takes back what it read', async () => {
    const created = await svc.request('POST', '/v1.0/people', { token, body: { name: 'Cy', destination_ids: [dest.toUpperCase()] } });
    expect(created.status, created.text).to.equal(201);
    expect(created.body).to.include({ name: 'Cy', timezone: 'UTC' });
    expect(created.body.destination_ids).to.deep.equal([dest]);
    const id = created.body.person_id;
    expect((await svc.request('GET', `/v1.0/people/${id}`, { token })).body).to.deep.equal(created.body);
    const list = await svc.request('GET', '/v1.0/people', { token });
    expect(list.body[0].person_id).to.equal(id);
    const moved = await svc.request('PUT', `/v1.0/people/${id}`, { token, body: { ...created.body, timezone: 'Asia/Kolkata' } });
    expect(moved.status, moved.text).to.equal(200);
    expect(moved.body).to.include({ timezone: 'Asia/Kolkata', name: 'Cy' });
    expect((await svc.request('DELETE', `/v1.0/people/${id}`, { token })).status).to.equal(204);
    expect((await svc.request('GET', `/v1.0/people/${id}`, { token })).status).to.equal(404);
  });

  it('refuses bad people with 400 naming the field, and stores nothing', async () => {
    const before = (await svc.request('GET', '/v1.0/people', { token })).body.length;
    const valid = { name: 'Dee', destination_ids: [dest] };
    for (const [body, field] of [
      [{ ...valid, destination_ids: [] }, '/destination_ids'],
      [{ ...valid, destination_ids: Array.from({ length: 11 }, () => dest) }, '/destination_ids'],
      [{ ...valid, destination_ids: [otherDest] }, '/destination_ids/0'],
      [{ ...valid, destination_ids: [dest, newId()] }, '/destination_ids/1'],
      [{ ...valid, destination_ids: ['nope'] }, '/destination_ids/0'],
      [{ ...valid, timezone: 'Mars/Olympus' }, '/timezone'],
      [{ ...valid, name: ' ' }, '/name'],
      [{ ...valid, nmae: 'x' }, ''],
    ] as const) {
      await expect400('POST', '/v1.0/people', body, field);
    }
    expect((await svc.request('GET', '/v1.0/people', { token })).body.length).to.equal(before);
  });

  it('creates a schedule with defaults, reads, lists, takes back what it read, and replaces the feed token', async () => {
    const body = {
      name: 'Database',
      timezone: 'Europe/Berlin',
      layers: [
        { name: 'weekly', start: '2027-01-04T08:00:00Z', rotation: { type: 'weekly' }, members: [ada, bo] },
        {
          name: 'nights',
          start: '2027-01-04T08:00:00Z',
          rotation: { type: 'hours', length: 12 },
          members: [bo],
          restrict_to: { days: ['sat'], start: '22:00', end: '06:00' },
        },
      ],
    };
    const created = await svc.request('POST', '/v1.0/schedules', { token, body });
    expect(created.status, created.text).to.equal(201);
    const s = created.body;
    expect(s).to.include({ name: 'Database', timezone: 'Europe/Berlin', notify_handoffs: false, ical_url: null });
    // The handoff defaults to the local time of start (09:00 in Berlin); hours rotations have none.
    expect(s.layers[0]).to.deep.equal({
      ...body.layers[0],
      start: '2027-01-04T08:00:00.000Z',
      rotation: { type: 'weekly', length: 1, handoff: '09:00' },
      restrict_to: null,
    });
    expect(s.layers[1].rotation).to.deep.equal({ type: 'hours', length: 12, handoff: null });
    expect(s.ical_token).to.have.length.greaterThan(30);
    expect((await svc.request('GET', `/v1.0/schedules/${s.schedule_id}`, { token })).body).to.deep.equal(s);
    expect((await svc.request('GET', '/v1.0/schedules', { token })).body.map((x: { schedule_id: string }) => x.schedule_id)).to.include(s.schedule_id);
    const readBack = await svc.request('PUT', `/v1.0/schedules/${s.schedule_id}`, { token, body: { ...s, name: 'DB' } });
    expect(readBack.status, readBack.text).to.equal(200);
    expect({ ...readBack.body, updated_at: null }).to.deep.equal({ ...s, name: 'DB', updated_at: null });
    const rotated = await svc.request('POST', `/v1.0/schedules/${s.schedule_id}/ical-token`, { token });
    expect(rotated.status, rotated.text).to.equal(200);
    expect(rotated.body.ical_token).to.not.equal(s.ical_token);
  });

  it('refuses bad schedules with 400 naming the field, and stores nothing', async () => {
    const before = (await svc.request('GET', '/v1.0/schedules', { token })).body.length;
    const valid = dailySchedule([ada, bo], '2027-01-04T09:00:00Z');
    const withLayer = (change: Record<string, unknown>) => ({ ...valid, layers: [{ ...valid.layers[0], ...change }] });
    const rotation = (change: Record<string, unknown>) => withLayer({ rotation: { type: 'daily', ...change } });
    for (const [body, field] of [
      [{ ...valid, timezone: 'Europe/Atlantis' }, '/timezone'],
      [{ ...valid, timezone: 'europe/berlin' }, '/timezone'],
      [rotation({ handoff: '24:00' }), '/layers/0/rotation/handoff'],
      [rotation({ handoff: '9:00' }), '/layers/0/rotation/handoff'],
      [rotation({ length: 0 }), '/layers/0/rotation/length'],
      [rotation({ length: 366 }), '/layers/0/rotation/length'],
      [rotation({ type: 'monthly' }), '/layers/0/rotation/type'],
      [withLayer({ rotation: { type: 'hours', handoff: '09:00' } }), '/layers/0/rotation/handoff'],
      [withLayer({ members: [] }), '/layers/0/members'],
      [withLayer({ members: [ada, otherPerson] }), '/layers/0/members/1'],
      [withLayer({ members: [newId()] }), '/layers/0/members/0'],
      [withLayer({ start: 'monday' }), '/layers/0/start'],
      [withLayer({ name: 'override' }), '/layers/0/name'],
      [withLayer({ restrict_to: { days: ['mon'], start: '09:00', end: '09:00' } }), '/layers/0/restrict_to/end'],
      [withLayer({ restrict_to: { days: ['someday'], start: '09:00', end: '17:00' } }), '/layers/0/restrict_to/days/0'],
      [withLayer({ restrict_to: { days: ['mon'], start: '24:00', end: '17:00' } }), '/layers/0/restrict_to/start'],
      [{ ...valid, layers: [valid.layers[0], valid.layers[0]] }, '/layers/1/name'],
      [{ ...valid, layers: Array.from({ length: 6 }, (_, i) => ({ ...valid.layers[0], name: `l${i}` })) }, '/layers'],
      [{ ...valid, layers: [] }, '/layers'],
      [withLayer({ members: Array.from({ length: 51 }, () => ada) }), '/layers/0/members'],
      [withLayer({ rotaiton: {} }), ''],
      [{ ...valid, notify_handoffs: 'yes' }, '/notify_handoffs'],
    ] as const) {
      await expect400('POST', '/v1.0/schedules', body, field);
    }
    expect((await svc.request('GET', '/v1.0/schedules', { token })).body.length).to.equal(before);
  });

  it('answers who is on call and the shifts, overrides winning, and refuses bad ranges', async () => {
    const s = await createSchedule(svc, token, dailySchedule([ada, bo], '2027-01-04T09:00:00Z'));
    const base = `/v1.0/schedules/${s.schedule_id}`;
    const onCall = await svc.request('GET', `${base}/on-call?at=2027-01-05T10:00:00Z`, { token });
    expect(onCall.status, onCall.text).to.equal(200);
    expect(onCall.body).to.deep.include({ at: '2027-01-05T10:00:00.000Z', layer: 'primary', until: '2027-01-06T09:00:00.000Z' });
    expect(onCall.body.person).to.include({ person_id: bo, name: 'Bo' });
    const nobody = await svc.request('GET', `${base}/on-call?at=2027-01-01T00:00:00Z`, { token });
    expect(nobody.body).to.deep.equal({ at: '2027-01-01T00:00:00.000Z', person: null, layer: null, until: '2027-01-04T09:00:00.000Z' });

    const o = await svc.request('POST', `${base}/overrides`, {
      token,
      body: { person_id: ada, starts_at: '2027-01-05T12:00:00Z', ends_at: '2027-01-05T15:00:00Z' },
    });
    expect(o.status, o.text).to.equal(201);
    const shifts = await svc.request('GET', `${base}/shifts?from=2027-01-05T09:00:00Z&to=2027-01-06T09:00:00Z`, { token });
    expect(shifts.status, shifts.text).to.equal(200);
    expect(shifts.body.map((x: { person_id: string; layer: string }) => [x.person_id, x.layer])).to.deep.equal([
      [bo, 'primary'],
      [ada, 'override'],
      [bo, 'primary'],
    ]);
    expect(shifts.body[1]).to.deep.equal({ person_id: ada, starts_at: '2027-01-05T12:00:00.000Z', ends_at: '2027-01-05T15:00:00.000Z', layer: 'override' });
    expect((await svc.request('GET', `${base}/on-call?at=2027-01-05T13:00:00Z`, { token })).body).to.include({
      layer: 'override',
      until: '2027-01-05T15:00:00.000Z',
    });

    for (const query of [
      'from=2027-01-05T00:00:00Z&to=2027-04-05T00:00:01Z',
      'from=2027-01-05T00:00:00Z&to=2027-01-05T00:00:00Z',
      'from=2027-01-05T00:00:00Z',
      'from=x&to=y',
      'from=2027-01-05T00:00:00Z&to=2027-01-06T00:00:00Z&extra=1',
    ]) {
      const res = await svc.request('GET', `${base}/shifts?${query}`, { token });
      expect(res.status, `${query} → ${res.text}`).to.equal(400);
    }
    expect((await svc.request('GET', `${base}/shifts?from=2027-01-05T00:00:00Z&to=2027-04-05T00:00:00Z`, { token })).status).to.equal(200);
    expect((await svc.request('GET', `${base}/on-call?at=soon`, { token })).status).to.equal(400);
  });

  it('refuses reversed and overlapping overrides (touching is fine), and overrides of another workspace’s person', async () => {
    const s = await createSchedule(svc, token, dailySchedule([ada], '2027-01-04T09:00:00Z'));
    const path = `/v1.0/schedules/${s.schedule_id}/overrides`;
    const first = await svc.request('POST', path, { token, body: { person_id: bo, starts_at: '2027-02-01T00:00:00Z', ends_at: '2027-02-02T00:00:00Z' } });
    expect(first.status, first.text).to.equal(201);
    for (const [body, field] of [
      [{ person_id: bo, starts_at: '2027-02-05T00:00:00Z', ends_at: '2027-02-04T00:00:00Z' }, '/ends_at'],
      [{ person_id: bo, starts_at: '2027-02-05T00:00:00Z', ends_at: '2027-02-05T00:00:00Z' }, '/ends_at'],
      [{ person_id: bo, starts_at: '2027-01-31T12:00:00Z', ends_at: '2027-02-01T00:00:01Z' }, '/starts_at'],
      [{ person_id: bo, starts_at: '2027-02-01T10:00:00Z', ends_at: '2027-02-01T11:00:00Z' }, '/starts_at'],
      [{ person_id: otherPerson, starts_at: '2027-03-01T00:00:00Z', ends_at: '2027-03-02T00:00:00Z' }, '/person_id'],
      [{ person_id: bo, starts_at: '2027-03-01T00:00:00Z' }, ''],
    ] as const) {
      await expect400('POST', path, body, field);
    }
    const touching = await svc.request('POST', path, { token, body: { person_id: ada, starts_at: '2027-02-02T00:00:00Z', ends_at: '2027-02-03T00:00:00Z' } });
    expect(touching.status, touching.text).to.equal(201);
    const list = await svc.request('GET', path, { token });
    expect(list.body.map((x: { override_id: string }) => x.override_id)).to.deep.equal([touching.body.override_id, first.body.override_id]);
    expect((await svc.request('GET', `${path}/${first.body.override_id}`, { token })).body).to.deep.equal(first.body);
    expect((await svc.request('DELETE', `${path}/${first.body.override_id}`, { token })).status).to.equal(204);
    expect((await svc.request('DELETE', `${path}/${first.body.override_id}`, { token })).status).to.equal(404);
    expect((await svc.request('GET', `${path}/nope`, { token })).body.error.code).to.equal('invalid_id');
  });

  it('answers 404 for another workspace’s schedules and people, and 400 invalid_id for malformed ids', async () => {
    const s = await createSchedule(svc, token, dailySchedule([ada], '2027-01-04T09:00:00Z'));
    const paths = [
      ['GET', `/v1.0/schedules/${s.schedule_id}`],
      ['PUT', `/v1.0/schedules/${s.schedule_id}`],
      ['DELETE', `/v1.0/schedules/${s.schedule_id}`],
      ['POST', `/v1.0/schedules/${s.schedule_id}/ical-token`],
      ['GET', `/v1.0/schedules/${s.schedule_id}/on-call`],
      ['GET', `/v1.0/schedules/${s.schedule_id}/shifts?from=2027-01-05T00:00:00Z&to=2027-01-06T00:00:00Z`],
      ['GET', `/v1.0/schedules/${s.schedule_id}/overrides`],
      ['GET', `/v1.0/people/${ada}`],
      ['PUT', `/v1.0/people/${ada}`],
      ['DELETE', `/v1.0/people/${ada}`],
    ];
    for (const [method, path] of paths) {
      const res = await svc.request(method!, path!, { token: otherToken, body: method === 'PUT' ? {} : undefined });
      expect(res.status, `${method} ${path} → ${res.text}`).to.equal(404);
    }
    const o = await svc.request('POST', `/v1.0/schedules/${s.schedule_id}/overrides`, {
      token: otherToken,
      body: { person_id: otherPerson, starts_at: '2027-03-01T00:00:00Z', ends_at: '2027-03-02T00:00:00Z' },
    });
    expect(o.status).to.equal(404);
    for (const path of ['/v1.0/schedules/123', '/v1.0/people/abc', '/v1.0/schedules/xyz/shifts?from=2027-01-05T00:00:00Z&to=2027-01-06T00:00:00Z']) {
      const res = await svc.request('GET', path, { token });
      expect(res.status, path).to.equal(400);
      expect(res.body.error.code).to.equal('invalid_id');
    }
  });

  it('refuses to delete a person a schedule names (person_in_use), then deletes them once free', async () => {
    const cy = await createPerson(svc, token, 'Cy', dest);
    const dee = await createPerson(svc, token, 'Dee', dest);
    const s = await createSchedule(svc, token, dailySchedule([cy], '2027-01-04T09:00:00Z'));
    const named = await svc.request('DELETE', `/v1.0/people/${cy}`, { token });
    expect(named.status, named.text).to.equal(409);
    expect(named.body.error.code).to.equal('person_in_use');
    const far = new Date(Date.now() + 30 * 86_400_000);
    await svc.request('POST', `/v1.0/schedules/${s.schedule_id}/overrides`, {
      token,
      body: { person_id: dee, starts_at: far.toISOString(), ends_at: new Date(far.getTime() + 3_600_000).toISOString() },
    });
    expect((await svc.request('DELETE', `/v1.0/people/${dee}`, { token })).body.error.code).to.equal('person_in_use');
    const freed = await svc.request('PUT', `/v1.0/schedules/${s.schedule_id}`, { token, body: dailySchedule([ada], '2027-01-04T09:00:00Z') });
    expect(freed.status, freed.text).to.equal(200);
    expect((await svc.request('DELETE', `/v1.0/people/${cy}`, { token })).status).to.equal(204);
    expect((await svc.request('DELETE', `/v1.0/schedules/${s.schedule_id}`, { token })).status).to.equal(204);
    expect((await svc.request('DELETE', `/v1.0/people/${dee}`, { token })).status).to.equal(204);
  });

  it('lets only one of two overlapping overrides sent at once in', async () => {
    const s = await createSchedule(svc, token, dailySchedule([ada], '2027-01-04T09:00:00Z'));
    const path = `/v1.0/schedules/${s.schedule_id}/overrides`;
    const answers = await Promise.all(
      [bo, ada, bo, ada].map((person_id, i) =>
        svc.request('POST', path, { token, body: { person_id, starts_at: `2027-05-01T0${i}:00:00Z`, ends_at: '2027-05-01T12:00:00Z' } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).to.deep.equal([201, 400, 400, 400]);
    expect((await svc.request('GET', path, { token })).body).to.have.length(1);
  });

  it('answers at the ends of the years it keeps without a 500', async () => {
    const s = await createSchedule(svc, token, {
      ...dailySchedule([ada, bo], '2000-01-01T00:00:00Z', 'Pacific/Chatham'),
      layers: [
        { name: 'hourly', start: '2000-01-01T00:00:00Z', rotation: { type: 'hours', length: 1 }, members: [ada, bo] },
        {
          name: 'yearly',
          start: '2000-01-01T00:00:00Z',
          rotation: { type: 'weekly', length: 52 },
          members: [bo],
          restrict_to: { days: ['sun'], start: '23:30', end: '00:30' },
        },
      ],
    });
    const base = `/v1.0/schedules/${s.schedule_id}`;
    for (const path of [
      `${base}/on-call?at=9999-12-30T23:59:59Z`,
      `${base}/on-call?at=1999-12-31T00:00:00Z`,
      `${base}/on-call?at=0001-01-01T00:00:00Z`,
      `${base}/shifts?from=9999-10-01T00:00:00Z&to=9999-12-30T00:00:00Z`,
      `${base}/timeline?from=2000-01-01T00:00:00Z&to=2000-03-31T00:00:00Z`,
    ]) {
      const res = await svc.request('GET', path, { token });
      expect(res.status, `${path} → ${res.text.slice(0, 200)}`).to.equal(200);
    }
    const hourly = await svc.request('GET', `${base}/shifts?from=2000-01-01T00:00:00Z&to=2000-03-31T00:00:00Z`, { token });
    expect(hourly.body.length).to.be.greaterThan(2000);
  });

  it('creates once with an Idempotency-Key', async () => {
    const headers = { 'idempotency-key': `oncall-${newId()}` };
    const body = { name: 'Once', destination_ids: [dest] };
    const first = await svc.request('POST', '/v1.0/people', { token, body, headers });
    const again = await svc.request('POST', '/v1.0/people', { token, body, headers });
    expect(again.status).to.equal(201);
    expect(again.body).to.deep.equal(first.body);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
  });
});
