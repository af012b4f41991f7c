// Escalation steps that page the person on call (docs/oncall.md, Paging the on-call), on the
// real engines and through real dispatch to a local fake: the step is resolved when it fires
// (the test clock drives the cycles), this week's person before the handoff and next week's
// after it, an override wins, no one on call is recorded and the chain goes on; and the
// bad input of steps, and the deletes they refuse.
import { expect } from 'chai';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';
import { createWebhook, cycleAt, ESCALATION_TEST_ENV, escalatingPolicy, escalationsOf, MINUTE, raise } from './helpers.js';

const DAY = 86_400_000;

describe('escalation steps naming schedules and people', function () {
  this.timeout(120_000);
  let svc: TestService;
  let sink: FakeHttpServer;
  let token: string;
  let ada: string;
  let bo: string;
  let cy: string;
  let plain: string;
  let weekly: string;

  const person = async (name: string) => {
    const destinationId = await createWebhook(svc, token, `${sink.origin}/${name.toLowerCase()}`);
    const res = await svc.request('POST', '/v1.0/people', { token, body: { name, destination_ids: [destinationId] } });
    if (res.status !== 201) throw new Error(`person: ${res.status} ${res.text}`);
    return res.body.person_id as string;
  };
  const schedule = async (name: string, members: string[], start: Date) => {
    const res = await svc.request('POST', '/v1.0/schedules', {
      token,
      body: { name, timezone: 'Europe/Berlin', layers: [{ name: 'week', start: start.toISOString(), rotation: { type: 'weekly' }, members }] },
    });
    if (res.status !== 201) throw new Error(`schedule: ${res.status} ${res.text}`);
    return res.body.schedule_id as string;
  };
  const chain = async (steps: object[]) => {
    const res = await svc.request('POST', '/v1.0/escalation-policies', { token, body: { name: `on call ${Math.random()}`, steps } });
    if (res.status !== 201) throw new Error(`escalation policy: ${res.status} ${res.text}`);
    return res.body.escalation_policy_id as string;
  };
  /** The alert.escalated bodies the fake got at /<who> for the alert. */
  const pagedAt = (who: string, alertId: string) =>
    sink.requests.filter((r) => r.path === `/${who}` && r.json?.type === 'alert.escalated' && r.json.alert.alert_id === alertId);

  before(async function () {
    this.timeout(600_000);
    sink = await FakeHttpServer.start();
    svc = await startTestService({ env: ESCALATION_TEST_ENV });
    token = await svc.tokenFor('escalation-oncall-ws');
    [ada, bo, cy] = [await person('Ada'), await person('Bo'), await person('Cy')];
    plain = await createWebhook(svc, token, `${sink.origin}/plain`);
    // Ada's week began a day ago; Bo's begins in six days.
    weekly = await schedule('Database', [ada, bo], new Date(Date.now() - DAY));
  });
  after(async () => {
    await svc.close();
    await sink.close();
  });

  it('pages this week’s person when the step fires, and next week’s when it fires after the handoff', async () => {
    const escalationId = await chain([{ after_minutes: 1, schedule_ids: [weekly] }]);
    const first = await raise(svc, token, await escalatingPolicy(svc, token, escalationId));
    await cycleAt(svc, first, MINUTE);
    const second = await raise(svc, token, await escalatingPolicy(svc, token, escalationId));
    // Its step is due a minute after it triggered, but fires only at a cycle a week later: Bo is on call then.
    await cycleAt(svc, second, 7 * DAY);

    expect((await escalationsOf(svc, first.alert_id)).map((r) => r.alert.escalation)).to.deep.equal([
      { step: 1, of: 1, round: 1, on_call: [{ schedule_id: weekly, person_id: ada }] },
    ]);
    expect((await escalationsOf(svc, second.alert_id)).map((r) => r.alert.escalation)).to.deep.equal([
      { step: 1, of: 1, round: 1, on_call: [{ schedule_id: weekly, person_id: bo }] },
    ]);
    const atAda = await waitFor('Ada paged for the first alert', async () =>
      pagedAt('ada', first.alert_id).length === 1 ? pagedAt('ada', first.alert_id) : null,
    );
    await waitFor('Bo paged for the second alert', async () => pagedAt('bo', second.alert_id).length === 1 || null);
    expect(atAda[0]!.json.escalation).to.deep.equal({ step: 1, of: 1, round: 1, on_call: [{ schedule_id: weekly, person_id: ada }] });
    expect(pagedAt('bo', first.alert_id)).to.have.length(0);
    expect(pagedAt('ada', second.alert_id)).to.have.length(0);

    // The alert's history: the attempt to Ada's destination, with whom the step paged.
    const history = await svc.request('GET', `/v1.0/alerts/${first.alert_id}/deliveries`, { token });
    const escalated = history.body.filter((d: { type: string }) => d.type === 'alert.escalated');
    expect(escalated).to.have.length(1);
    expect(escalated[0].escalation).to.deep.equal({ step: 1, of: 1, round: 1, on_call: [{ schedule_id: weekly, person_id: ada }] });
  });

  it('pages the substitute while an override covers the moment the step fires, and the rotation again once it is gone', async () => {
    const escalationId = await chain([{ after_minutes: 1, schedule_ids: [weekly], destination_ids: [plain] }]);
    const now = Date.now();
    const override = await svc.request('POST', `/v1.0/schedules/${weekly}/overrides`, {
      token,
      body: { person_id: cy, starts_at: new Date(now - MINUTE).toISOString(), ends_at: new Date(now + 60 * MINUTE).toISOString() },
    });
    expect(override.status, override.text).to.equal(201);
    const covered = await raise(svc, token, await escalatingPolicy(svc, token, escalationId));
    await cycleAt(svc, covered, MINUTE);
    expect((await svc.request('DELETE', `/v1.0/schedules/${weekly}/overrides/${override.body.override_id}`, { token })).status).to.equal(204);
    const after = await raise(svc, token, await escalatingPolicy(svc, token, escalationId));
    await cycleAt(svc, after, MINUTE);

    expect((await escalationsOf(svc, covered.alert_id))[0]!.alert.escalation.on_call).to.deep.equal([{ schedule_id: weekly, person_id: cy }]);
    expect((await escalationsOf(svc, after.alert_id))[0]!.alert.escalation.on_call).to.deep.equal([{ schedule_id: weekly, person_id: ada }]);
    await waitFor('Cy paged for the covered alert', async () => pagedAt('cy', covered.alert_id).length === 1 || null);
    await waitFor('Ada paged for the later alert', async () => pagedAt('ada', after.alert_id).length === 1 || null);
    // The step's own destination, beside the on-call person, each time.
    await waitFor(
      'the plain destination paged twice',
      async () => pagedAt('plain', covered.alert_id).length + pagedAt('plain', after.alert_id).length === 2 || null,
    );
    expect(pagedAt('ada', covered.alert_id)).to.have.length(0);
    expect(pagedAt('cy', after.alert_id)).to.have.length(0);
  });

  it('records no_one_on_call for a schedule with no one on call, and goes on with the next step', async () => {
    // Its rotation starts in a month: no one is on call now.
    const empty = await schedule('Not yet', [ada], new Date(Date.now() + 30 * DAY));
    const escalationId = await chain([
      { after_minutes: 1, schedule_ids: [empty] },
      { after_minutes: 1, person_ids: [bo] },
    ]);
    const alert = await raise(svc, token, await escalatingPolicy(svc, token, escalationId));
    await cycleAt(svc, alert, MINUTE);
    await cycleAt(svc, alert, 2 * MINUTE);

    expect((await escalationsOf(svc, alert.alert_id)).map((r) => r.alert.escalation)).to.deep.equal([
      { step: 1, of: 2, round: 1, on_call: [{ schedule_id: empty, person_id: null }] },
      { step: 2, of: 2, round: 1, on_call: [{ schedule_id: null, person_id: bo }] },
    ]);
    await waitFor('Bo paged by step 2', async () => pagedAt('bo', alert.alert_id).length === 1 || null);
    const history = await svc.request('GET', `/v1.0/alerts/${alert.alert_id}/deliveries`, { token });
    const nobody = history.body.filter((d: { status: string }) => d.status === 'no_one_on_call');
    expect(nobody).to.have.length(1);
    expect(nobody[0]).to.include({ destination_id: null, type: 'alert.escalated', kind: 'alert' });
    expect(nobody[0].target).to.include(empty);
    expect(nobody[0].escalation).to.deep.equal({ step: 1, of: 2, round: 1, on_call: [{ schedule_id: empty, person_id: null }] });
    expect(pagedAt('ada', alert.alert_id)).to.have.length(0);
  });

  describe('bad input and deletes', () => {
    let other: { token: string; person: string; schedule: string; destination: string };

    before(async () => {
      const otherToken = await svc.tokenFor('escalation-oncall-other');
      const destination = await createWebhook(svc, otherToken, `${sink.origin}/other`);
      const p = await svc.request('POST', '/v1.0/people', { token: otherToken, body: { name: 'Eve', destination_ids: [destination] } });
      const s = await svc.request('POST', '/v1.0/schedules', {
        token: otherToken,
        body: {
          name: 'Theirs',
          timezone: 'UTC',
          layers: [{ name: 'l', start: new Date().toISOString(), rotation: { type: 'daily' }, members: [p.body.person_id] }],
        },
      });
      other = { token: otherToken, person: p.body.person_id, schedule: s.body.schedule_id, destination };
    });

    const unknown = '00000000-0000-4000-8000-000000000000';
    const refused = async (steps: unknown, status = 400) => {
      const before = (await svc.request('GET', '/v1.0/escalation-policies', { token })).body.length;
      const res = await svc.request('POST', '/v1.0/escalation-policies', { token, body: { name: 'bad', steps } });
      expect(res.status, res.text).to.equal(status);
      expect((await svc.request('GET', '/v1.0/escalation-policies', { token })).body.length, 'nothing created').to.equal(before);
      return res.body.error;
    };

    it('refuses another workspace’s schedules and people, unknown ids, a step with no target, lists too long and ids that are not UUIDs', async () => {
      const theirs = await refused([{ after_minutes: 1, schedule_ids: [weekly, other.schedule], person_ids: [other.person] }]);
      expect(theirs.code).to.equal('validation_failed');
      expect(theirs.details).to.deep.equal([
        { path: '/steps/0/schedule_ids/1', message: 'is not a schedule of this workspace' },
        { path: '/steps/0/person_ids/0', message: 'is not a person of this workspace' },
      ]);
      const unknowns = await refused([
        { after_minutes: 1, destination_ids: [plain] },
        { after_minutes: 1, schedule_ids: [unknown], person_ids: [unknown] },
      ]);
      expect(unknowns.details.map((d: { path: string }) => d.path)).to.deep.equal(['/steps/1/schedule_ids/0', '/steps/1/person_ids/0']);
      const empty = await refused([{ after_minutes: 1, destination_ids: [], schedule_ids: [], person_ids: [] }]);
      expect(empty.details).to.deep.equal([
        { path: '/steps/0', message: 'must name at least one destination, schedule or person (destination_ids, schedule_ids, person_ids)' },
      ]);
      expect((await refused([{ after_minutes: 1 }])).details[0].path).to.equal('/steps/0');
      const huge = await refused([{ after_minutes: 1, person_ids: Array.from({ length: 51 }, () => ada) }]);
      expect(huge.details.some((d: { path: string }) => d.path.startsWith('/steps/0/person_ids'))).to.equal(true);
      await refused([{ after_minutes: 1, schedule_ids: Array.from({ length: 21 }, () => weekly) }]);
      await refused([{ after_minutes: 1, schedule_ids: ['not-a-uuid'] }]);
      await refused([{ after_minutes: 1, schedule_ids: weekly }]);
    });

    it('shows the lists it was given (ids once each, lower case) and [] for those left out; PUT checks them the same way', async () => {
      const res = await svc.request('POST', '/v1.0/escalation-policies', {
        token,
        body: {
          name: 'mixed',
          steps: [
            { after_minutes: 5, schedule_ids: [weekly.toUpperCase(), weekly] },
            { after_minutes: 5, destination_ids: [plain] },
          ],
        },
      });
      expect(res.status, res.text).to.equal(201);
      expect(res.body.steps).to.deep.equal([
        { after_minutes: 5, destination_ids: [], schedule_ids: [weekly], person_ids: [] },
        { after_minutes: 5, destination_ids: [plain], schedule_ids: [], person_ids: [] },
      ]);
      const put = await svc.request('PUT', `/v1.0/escalation-policies/${res.body.escalation_policy_id}`, {
        token,
        body: { steps: [{ after_minutes: 5, person_ids: [other.person] }] },
      });
      expect(put.status).to.equal(400);
      const read = await svc.request('GET', `/v1.0/escalation-policies/${res.body.escalation_policy_id}`, { token });
      expect(read.body.steps).to.deep.equal(res.body.steps);
    });

    it('refuses to delete a person or a schedule a step pages (409), and deletes them once no step does', async () => {
      const dee = await person('Dee');
      const res = await svc.request('POST', '/v1.0/schedules', {
        token,
        body: { name: 'Disposable', timezone: 'UTC', layers: [{ name: 'l', start: new Date().toISOString(), rotation: { type: 'daily' }, members: [ada] }] },
      });
      const disposable = res.body.schedule_id;
      const escalationId = await chain([{ after_minutes: 1, schedule_ids: [disposable], person_ids: [dee] }]);

      const personRefused = await svc.request('DELETE', `/v1.0/people/${dee}`, { token });
      expect(personRefused.status).to.equal(409);
      expect(personRefused.body.error.code).to.equal('person_in_use');
      expect(personRefused.body.error.message).to.include(escalationId);
      const scheduleRefused = await svc.request('DELETE', `/v1.0/schedules/${disposable}`, { token });
      expect(scheduleRefused.status).to.equal(409);
      expect(scheduleRefused.body.error.code).to.equal('schedule_in_use');
      expect(scheduleRefused.body.error.message).to.include(escalationId);
      // Nothing changed.
      expect((await svc.request('GET', `/v1.0/people/${dee}`, { token })).status).to.equal(200);
      expect((await svc.request('GET', `/v1.0/schedules/${disposable}`, { token })).status).to.equal(200);
      // Another workspace's step naming the same ids cannot exist, and deleting theirs is a 404 here.
      expect((await svc.request('DELETE', `/v1.0/schedules/${other.schedule}`, { token })).status).to.equal(404);

      await svc.request('PUT', `/v1.0/escalation-policies/${escalationId}`, { token, body: { steps: [{ after_minutes: 1, destination_ids: [plain] }] } });
      expect((await svc.request('DELETE', `/v1.0/people/${dee}`, { token })).status).to.equal(204);
      expect((await svc.request('DELETE', `/v1.0/schedules/${disposable}`, { token })).status).to.equal(204);
    });
  });
});
