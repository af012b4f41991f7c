// The calendar feed, parsed by Mozilla's iCalendar parser as a calendar application would:
// every shift of the next 60 days, stable UIDs, UTC times; every refusal the same 404; the
// public routes' rate limit.
import { expect } from 'chai';
import ICAL from 'ical.js';
import { newId } from '../../../src/ids.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { createDestination, createPerson, createSchedule } from './helpers.js';

const DAY = 86_400_000;

interface FeedEvent {
  uid: string;
  summary: string;
  start: number;
  end: number;
  utc: boolean;
}

function parseFeed(text: string): FeedEvent[] {
  const calendar = new ICAL.Component(ICAL.parse(text));
  return calendar.getAllSubcomponents('vevent').map((c) => {
    const event = new ICAL.Event(c);
    return {
      uid: event.uid,
      summary: event.summary,
      start: event.startDate.toJSDate().getTime(),
      end: event.endDate.toJSDate().getTime(),
      utc: event.startDate.zone?.tzid === 'UTC' && event.endDate.zone?.tzid === 'UTC',
    };
  });
}

describe('on-call calendar feed', function () {
  this.timeout(60_000);
  let svc: TestService;
  let token: string;
  let schedule: { schedule_id: string; ical_token: string };
  let ada: string;

  before(async function () {
    this.timeout(600_000);
    svc = await startTestService({ env: { PUBLIC_RATE_LIMIT_PER_MINUTE: '40' } });
    token = await svc.tokenFor('oncall-feed-ws');
    const dest = await createDestination(svc, token);
    ada = await createPerson(svc, token, 'Ada Lovelace', dest);
    const bo = await createPerson(svc, token, 'Bo', dest);
    // Daily turns at 09:00 Berlin from a week ago, and an override in a few days.
    const start = new Date(Math.floor(Date.now() / DAY) * DAY - 7 * DAY + 8 * 3_600_000).toISOString();
    schedule = await createSchedule(svc, token, {
      name: 'Payments',
      timezone: 'Europe/Berlin',
      layers: [{ name: 'primary', start, rotation: { type: 'daily', handoff: '09:00' }, members: [ada, bo] }],
    });
    const overrideStart = Math.floor(Date.now() / DAY) * DAY + 3 * DAY + 12 * 3_600_000;
    const res = await svc.request('POST', `/v1.0/schedules/${schedule.schedule_id}/overrides`, {
      token,
      body: { person_id: bo, starts_at: new Date(overrideStart).toISOString(), ends_at: new Date(overrideStart + 2 * 3_600_000).toISOString() },
    });
    expect(res.status, res.text).to.equal(201);
  });
  after(() => svc.close());

  const feedPath = (id: string, t: string) => `/ical/schedules/${id}.ics?token=${encodeURIComponent(t)}`;

  it('lists every shift of the next 60 days with stable UIDs, UTC times and the person’s name', async () => {
    const res = await svc.request('GET', feedPath(schedule.schedule_id, schedule.ical_token));
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/calendar; charset=utf-8');
    expect(res.headers.get('cache-control')).to.match(/^private, max-age=\d+$/);
    const events = parseFeed(res.text);
    const now = Date.now();
    const shifts = await svc.request(
      'GET',
      `/v1.0/schedules/${schedule.schedule_id}/shifts?from=${new Date(now).toISOString()}&to=${new Date(now + 60 * DAY).toISOString()}`,
      { token },
    );
    // The feed's window starts a moment before this read: the same shifts, unless a handoff fell in between.
    expect(events.map((e) => [e.start, e.end])).to.deep.equal(
      shifts.body.map((s: { starts_at: string; ends_at: string }) => [Date.parse(s.starts_at), Date.parse(s.ends_at)]),
    );
    expect(events.length).to.be.within(62, 64);
    expect(events.every((e) => e.utc)).to.equal(true);
    expect(events[0]!.start).to.be.at.most(now);
    expect(events[events.length - 1]!.end).to.be.at.least(now + 60 * DAY);
    expect(new Set(events.map((e) => e.uid)).size).to.equal(events.length);
    expect(events.filter((e) => e.summary.includes('Ada Lovelace')).length).to.be.greaterThan(25);
    expect(res.text).to.match(/DTSTART:\d{8}T\d{6}Z/);

    const again = parseFeed((await svc.request('GET', feedPath(schedule.schedule_id, schedule.ical_token))).text);
    expect(again.map((e) => e.uid)).to.deep.equal(events.map((e) => e.uid));
  });

  it('refuses an unknown id, a malformed id, a wrong, missing or replaced token with the same 404', async () => {
    const old = schedule.ical_token;
    const rotated = await svc.request('POST', `/v1.0/schedules/${schedule.schedule_id}/ical-token`, { token });
    schedule = rotated.body;
    expect((await svc.request('GET', feedPath(schedule.schedule_id, schedule.ical_token))).status).to.equal(200);
    const refusals = [
      feedPath(newId(), schedule.ical_token),
      feedPath('not-a-uuid', schedule.ical_token),
      feedPath(schedule.schedule_id, 'guess'),
      feedPath(schedule.schedule_id, old),
      `/ical/schedules/${schedule.schedule_id}.ics`,
      feedPath(schedule.schedule_id, `${schedule.ical_token}x`),
    ];
    const answers = await Promise.all(refusals.map((p) => svc.request('GET', p)));
    for (const [i, res] of answers.entries()) {
      expect(res.status, refusals[i]).to.equal(404);
      expect(res.headers.get('cache-control'), refusals[i]).to.equal('no-store');
    }
    expect(new Set(answers.map((r) => r.text)).size, answers.map((r) => r.text).join('\n')).to.equal(1);
    expect(answers[0]!.body.error.code).to.equal('not_found');
  });

  it('stops working when the schedule is deleted, and is rate-limited per address like the share links', async () => {
    const other = await createSchedule(svc, token, {
      name: 'Short-lived',
      timezone: 'UTC',
      layers: [{ name: 'only', start: '2027-01-04T09:00:00Z', rotation: { type: 'weekly' }, members: [ada] }],
    });
    expect((await svc.request('GET', feedPath(other.schedule_id, other.ical_token))).status).to.equal(200);
    await svc.request('DELETE', `/v1.0/schedules/${other.schedule_id}`, { token });
    expect((await svc.request('GET', feedPath(other.schedule_id, other.ical_token))).status).to.equal(404);
    let limited = null;
    for (let i = 0; i < 50 && limited === null; i++) {
      const res = await svc.request('GET', feedPath(newId(), 'guess'));
      if (res.status === 429) limited = res;
    }
    expect(limited, 'no 429 within 50 requests at 40 a minute').to.not.equal(null);
    expect(limited!.body.error.code).to.equal('rate_limited');
    expect(Number(limited!.headers.get('retry-after'))).to.be.greaterThan(0);
  });
});
