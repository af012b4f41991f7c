// Handoff notices on the real engines, through real dispatch to a local fake (docs/oncall.md,
// Handoff notices): the cycles run on a test clock; each shift start of a schedule with
// notify_handoffs is announced once, to the incoming person, however many cycles (and
// workers at once) cover it, and even when the cursor is set back; a schedule without
// notify_handoffs announces nothing; cycles that find no start leave the cursor row unwritten.
import { expect } from 'chai';
import { CURSOR_STEP_MS, runDueHandoffs } from '../../../src/oncall/handoffs.js';
import { FakeHttpServer, type RecordedRequest } from '../../helpers/fakeProviders.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';
import { ESCALATION_TEST_ENV } from '../escalation/helpers.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('handoff notices', function () {
  this.timeout(120_000);
  let svc: TestService;
  let sink: FakeHttpServer;
  let token: string;
  let ada: string;
  let bo: string;
  /** The first shift's start: a whole hour, a day ahead (no real handoff gets in the way). */
  const start = Math.ceil((Date.now() + DAY) / HOUR) * HOUR;

  const person = async (name: string) => {
    const d = await svc.request('POST', '/v1.0/destinations', {
      token,
      body: { channel: 'webhook', url: `${sink.origin}/${name.toLowerCase()}` },
    });
    if (d.status !== 201) throw new Error(`destination: ${d.status} ${d.text}`);
    const p = await svc.request('POST', '/v1.0/people', { token, body: { name, destination_ids: [d.body.destination_id] } });
    return p.body.person_id as string;
  };
  const schedule = async (name: string, notify: boolean) => {
    const res = await svc.request('POST', '/v1.0/schedules', {
      token,
      body: {
        name,
        timezone: 'Europe/Berlin',
        notify_handoffs: notify,
        layers: [{ name: 'daily', start: new Date(start).toISOString(), rotation: { type: 'daily' }, members: [ada, bo] }],
      },
    });
    if (res.status !== 201) throw new Error(`schedule: ${res.status} ${res.text}`);
    return res.body.schedule_id as string;
  };
  const cycle = (at: number) => runDueHandoffs(svc.stores.postgres, new Date(at));
  const noticesOf = async (scheduleId: string) =>
    svc.stores.postgres.query<{ alert: { handoff: { person_id: string; starts_at: string } }; destination_ids: string[] }>(
      `SELECT alert, destination_ids FROM alert_notifications WHERE type = 'schedule.handoff' AND alert -> 'handoff' ->> 'schedule_id' = $1 ORDER BY created_at`,
      [scheduleId],
    );
  const received = (who: string): RecordedRequest[] => sink.requests.filter((r) => r.path === `/${who}` && r.json?.type === 'schedule.handoff');

  before(async function () {
    this.timeout(600_000);
    sink = await FakeHttpServer.start();
    svc = await startTestService({ env: ESCALATION_TEST_ENV });
    token = await svc.tokenFor('handoff-ws');
    [ada, bo] = [await person('Ada'), await person('Bo')];
  });
  after(async () => {
    await svc.close();
    await sink.close();
  });

  it('announces each shift start once, to the incoming person, however many cycles and workers cover it', async () => {
    const announced = await schedule('Database', true);
    const quiet = await schedule('Quiet', false);

    await cycle(start - 60_000);
    expect(await noticesOf(announced)).to.have.length(0);
    await cycle(start);
    await cycle(start);
    await cycle(start + 60_000);
    // Bo's turn: four workers' cycles at once, then more later.
    await Promise.all([1, 2, 3, 4].map(() => cycle(start + DAY + 1000)));
    await cycle(start + DAY + 5 * 60_000);

    const notices = await noticesOf(announced);
    expect(notices.map((n) => [n.alert.handoff.person_id, n.alert.handoff.starts_at])).to.deep.equal([
      [ada, new Date(start).toISOString()],
      [bo, new Date(start + DAY).toISOString()],
    ]);
    expect(await noticesOf(quiet)).to.have.length(0);

    // Sent by the delivery worker to each incoming person's own destination, once.
    const atAda = await waitFor('Ada’s notice', async () => (received('ada').length === 1 ? received('ada') : null));
    await waitFor('Bo’s notice', async () => received('bo').length === 1 || null);
    const body = atAda[0]!.json;
    expect(body.handoff).to.deep.include({
      schedule_id: announced,
      schedule_name: 'Database',
      person_id: ada,
      person_name: 'Ada',
      layer: 'daily',
      timezone: 'Europe/Berlin',
      starts_at: new Date(start).toISOString(),
      ends_at: new Date(start + DAY).toISOString(),
    });
    expect(body).to.not.have.property('alert');
    expect(atAda[0]!.headers['webhook-signature']).to.match(/^v1,/);

    // Its delivery history, under the handoff's id.
    const history = await svc.request('GET', `/v1.0/alerts/${body.handoff.handoff_id}/deliveries?kind=handoff`, { token });
    expect(history.status, history.text).to.equal(200);
    expect(history.body.map((a: { kind: string; type: string }) => [a.kind, a.type])).to.deep.equal([['handoff', 'schedule.handoff']]);
  });

  it('announces nothing twice when the cursor is set back (a cycle that covers a stretch again), and nothing far in the past', async () => {
    const announced = await schedule('Again', true);
    await cycle(start + 2 * DAY);
    expect(await noticesOf(announced)).to.have.length(1);
    await svc.stores.postgres.query('UPDATE handoff_cursor SET covered_to = $1', [new Date(start + 2 * DAY - 30 * 60_000)]);
    await cycle(start + 2 * DAY + 60_000);
    expect(await noticesOf(announced)).to.have.length(1);
    // A start more than an hour before the cycle that first sees it (every worker was down) is not announced late.
    await cycle(start + 3 * DAY + 2 * HOUR);
    expect(await noticesOf(announced)).to.have.length(1);
  });

  it('moves its cursor only past shift starts or once it lags a minute: cycles seconds apart that find none write nothing', async () => {
    const cursor = async () => (await svc.stores.postgres.query<{ version: string }>('SELECT xmin::text AS version FROM handoff_cursor'))[0]!.version;
    const at = start + 5 * DAY + 30 * 60_000; // between two daily starts
    await cycle(at);
    const moved = await cursor();
    for (let i = 1; i <= 10; i++) await cycle(at + i * 5000);
    expect(await cursor(), 'ten polls within a minute, no start').to.equal(moved);
    await cycle(at + CURSOR_STEP_MS);
    expect(await cursor(), 'a minute on').to.not.equal(moved);
    // A start found moves it at once, and is announced once.
    const announced = await schedule('Stepped', true);
    const next = start + 6 * DAY;
    await cycle(next - 10_000);
    await cycle(next + 1000);
    expect(await noticesOf(announced)).to.have.length(1);
    const after = await cursor();
    await cycle(next + 2000);
    expect(await cursor()).to.equal(after);
    expect(await noticesOf(announced)).to.have.length(1);
  });
});
