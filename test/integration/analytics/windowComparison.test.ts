// Window comparisons computed from the rollups, against controlled data at fixed instants;
// `now` is passed to the domain function. Each log is marked with the window it belongs to,
// and every number of the answer is checked against the values themselves.
import { expect } from 'chai';
import { windowComparison, type WindowComparison } from '../../../src/analytics/windowComparison.js';
import type { Comparison, WindowPeriod } from '../../../src/analytics/windows.js';
import type { LogIngestor } from '../../../src/ingest/logIngestor.js';
import { directIngestor, expectedNumbers, expectSameNumbers, ingestAt, stopTtlMerges } from '../../helpers/analytics.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { describeInOneRun } from '../../helpers/stores.js';

type Where = 'current' | 'previous' | 'neither';
type Log = readonly [at: string, value: number, where: Where];

describeInOneRun('window comparison over the rollups', function () {
  this.timeout(120_000);
  const workspaceId = 'analytics-ws';
  let svc: TestService;
  let token: string;
  let ingestor: LogIngestor;

  before(async () => {
    svc = await startTestService();
    token = await svc.tokenFor(workspaceId);
    await stopTtlMerges(svc);
    ingestor = await directIngestor(svc);
  });
  after(() => svc.close());

  async function createEvent(event: string, timezone: string): Promise<string> {
    const res = await svc.request('POST', '/v1.0/events', { token, body: { event, agent: 'a', timezone } });
    expect(res.status).to.equal(201);
    return res.body.event_id;
  }

  const compare = (eventId: string, period: WindowPeriod, previous: Comparison, now: string): Promise<WindowComparison> =>
    windowComparison(svc.stores, workspaceId, { eventId, period, previous, now: Date.parse(now) });

  const windowsOf = (c: WindowComparison) =>
    [c.windows.current.from, c.windows.current.to, c.windows.previous.from, c.windows.previous.to].map((t) => new Date(t).toISOString());

  /** An event in `timezone` with these logs; checks every number of the comparison at `now`. */
  async function check(event: string, timezone: string, logs: readonly Log[], period: WindowPeriod, previous: Comparison, now: string) {
    const eventId = await createEvent(event, timezone);
    await ingestAt(
      ingestor,
      workspaceId,
      'a',
      event,
      logs.map(([at, value]) => ({ at, value })),
    );
    const result = await compare(eventId, period, previous, now);
    const valuesIn = (where: Where) => logs.filter((l) => l[2] === where).map((l) => l[1]);
    expectSameNumbers(result.data, expectedNumbers(valuesIn('current'), valuesIn('previous')));
    return result;
  }

  it('1h/previous_window: this clock hour up to now against the hour before, edges included and excluded', async () => {
    const result = await check(
      'hourly',
      'UTC',
      [
        ['2026-11-20T10:00:00.000Z', 2, 'current'],
        ['2026-11-20T10:05:10.000Z', 4, 'current'],
        ['2026-11-20T10:20:59.999Z', 6, 'current'],
        ['2026-11-20T10:21:00.000Z', 100, 'neither'], // after the current minute
        ['2026-11-20T09:00:00.000Z', 1, 'previous'],
        ['2026-11-20T09:20:59.999Z', 3, 'previous'],
        ['2026-11-20T09:21:00.000Z', 100, 'neither'], // later in the previous hour than now is in this one
        ['2026-11-20T08:59:59.999Z', 100, 'neither'],
      ],
      '1h',
      'previous_window',
      '2026-11-20T10:20:30.000Z',
    );
    expect(windowsOf(result)).to.deep.equal(['2026-11-20T10:00:00.000Z', '2026-11-20T10:21:00.000Z', '2026-11-20T09:00:00.000Z', '2026-11-20T09:21:00.000Z']);
    // The same numbers by hand: [2, 4, 6] against [1, 3].
    expect(result.data).to.deep.include({
      current_value: 12,
      current_count: 3,
      current_mean: 4,
      current_stddev: 2,
      previous_value: 4,
      previous_count: 2,
      previous_mean: 2,
      value_delta: 8,
      count_delta: 1,
      mean_delta: 2,
      value_pct_change: 200,
      count_pct_change: 50,
      mean_pct_change: 100,
    });
    expect(result.data!.previous_stddev).to.be.closeTo(Math.SQRT2, 1e-12);
  });

  it('1d/previous_window on the 25-hour day in Europe/Berlin: today since local midnight against yesterday to the same clock time', async () => {
    const result = await check(
      'berlin-day',
      'Europe/Berlin',
      [
        ['2026-10-24T21:59:59.000Z', 100, 'neither'], // 23:59:59 CEST on the 24th: neither window
        ['2026-10-24T22:00:00.000Z', 10, 'current'], // 00:00 CEST on the 25th
        ['2026-10-25T00:30:00.000Z', 20, 'current'], // the first 02:30 (CEST)
        ['2026-10-25T01:30:00.000Z', 30, 'current'], // the second 02:30 (CET)
        ['2026-10-25T11:00:59.000Z', 40, 'current'], // 12:00:59 CET
        ['2026-10-25T11:01:00.000Z', 100, 'neither'],
        ['2026-10-23T21:59:59.000Z', 100, 'neither'],
        ['2026-10-23T22:00:00.000Z', 5, 'previous'], // 00:00 CEST on the 24th
        ['2026-10-24T10:00:59.000Z', 7, 'previous'], // 12:00:59 CEST
        ['2026-10-24T10:01:00.000Z', 100, 'neither'], // 12:01 CEST, later than now's clock time
      ],
      '1d',
      'previous_window',
      '2026-10-25T11:00:30.000Z', // 12:00:30 CET
    );
    expect(windowsOf(result)).to.deep.equal(['2026-10-24T22:00:00.000Z', '2026-10-25T11:01:00.000Z', '2026-10-23T22:00:00.000Z', '2026-10-24T10:01:00.000Z']);
    expect(result.timezone).to.equal('Europe/Berlin');
  });

  it('1h/previous_1d the day after clocks fell back (Europe/Berlin): yesterday 02:00–02:31 is the first of the two', async () => {
    const result = await check(
      'berlin-hour',
      'Europe/Berlin',
      [
        ['2026-10-26T01:00:00.000Z', 3, 'current'], // 02:00 CET on the 26th
        ['2026-10-26T01:30:59.000Z', 5, 'current'],
        ['2026-10-25T00:15:00.000Z', 8, 'previous'], // the first 02:15 of the 25th (CEST)
        ['2026-10-25T01:15:00.000Z', 100, 'neither'], // the second 02:15 (CET), an hour later in real time
      ],
      '1h',
      'previous_1d',
      '2026-10-26T01:30:00.000Z',
    );
    expect(windowsOf(result)).to.deep.equal(['2026-10-26T01:00:00.000Z', '2026-10-26T01:31:00.000Z', '2026-10-25T00:00:00.000Z', '2026-10-25T00:31:00.000Z']);
  });

  it('1d/previous_window in Asia/Kolkata (UTC+05:30): days from 18:30 UTC, edges from minute rollups', async () => {
    const result = await check(
      'kolkata-day',
      'Asia/Kolkata',
      [
        ['2026-11-19T18:29:59.000Z', 100, 'neither'], // 23:59:59 IST on the 19th, later than now's clock time
        ['2026-11-19T18:30:00.000Z', 1.5, 'current'], // 00:00 IST on the 20th
        ['2026-11-19T18:59:00.000Z', 2.5, 'current'],
        ['2026-11-19T19:10:00.000Z', 3.5, 'current'],
        ['2026-11-20T05:59:59.000Z', 4.5, 'current'],
        ['2026-11-20T06:00:59.000Z', 5.5, 'current'], // 11:30:59 IST
        ['2026-11-20T06:01:00.000Z', 100, 'neither'],
        ['2026-11-18T18:29:00.000Z', 100, 'neither'],
        ['2026-11-18T18:30:00.000Z', 10, 'previous'],
        ['2026-11-19T02:00:00.000Z', 20, 'previous'],
        ['2026-11-19T06:00:59.000Z', 30, 'previous'],
        ['2026-11-19T06:01:00.000Z', 100, 'neither'],
      ],
      '1d',
      'previous_window',
      '2026-11-20T06:00:00.000Z',
    );
    expect(windowsOf(result)).to.deep.equal(['2026-11-19T18:30:00.000Z', '2026-11-20T06:01:00.000Z', '2026-11-18T18:30:00.000Z', '2026-11-19T06:01:00.000Z']);
  });

  it('7d/previous_window in America/New_York across the fall-back Sunday: whole days from the day rollup', async () => {
    const logs: Log[] = [];
    // Monday 2 Nov 00:00 EST (05:00Z) to Tuesday 3 Nov 10:01 EST; the week before from Monday 26 Oct 00:00 EDT (04:00Z).
    for (let h = 0; h < 34; h++) logs.push([new Date(Date.parse('2026-11-02T05:00:00Z') + h * 3_600_000).toISOString(), h, 'current']);
    logs.push(['2026-11-03T15:00:59.000Z', 0.25, 'current'], ['2026-11-03T15:01:00.000Z', 100, 'neither'], ['2026-11-02T04:59:59.000Z', 100, 'neither']);
    for (let h = 0; h < 34; h++) logs.push([new Date(Date.parse('2026-10-26T04:00:00Z') + h * 3_600_000).toISOString(), h * 2, 'previous']);
    logs.push(['2026-10-27T14:00:59.000Z', 0.5, 'previous'], ['2026-10-27T14:01:00.000Z', 100, 'neither'], ['2026-10-26T03:59:59.000Z', 100, 'neither']);
    logs.push(['2026-11-01T06:30:00.000Z', 100, 'neither']); // the Sunday between the windows
    const result = await check('newyork-week', 'America/New_York', logs, '7d', 'previous_window', '2026-11-03T15:00:00.000Z');
    expect(windowsOf(result)).to.deep.equal(['2026-11-02T05:00:00.000Z', '2026-11-03T15:01:00.000Z', '2026-10-26T04:00:00.000Z', '2026-10-27T14:01:00.000Z']);
  });

  it('7d/previous_1m: this week against the same weekdays four weeks earlier', async () => {
    const logs: Log[] = [];
    for (let d = 0; d < 5; d++) {
      logs.push([`2026-11-${16 + d}T08:00:00.000Z`, 10 + d, 'current'], [`2026-10-${19 + d}T08:00:00.000Z`, 20 + d, 'previous']);
    }
    logs.push(['2026-11-20T12:01:00.000Z', 100, 'neither'], ['2026-10-23T12:01:00.000Z', 100, 'neither'], ['2026-10-18T23:59:59.000Z', 100, 'neither']);
    logs.push(['2026-11-09T08:00:00.000Z', 100, 'neither']); // last week
    const result = await check('weekly', 'UTC', logs, '7d', 'previous_1m', '2026-11-20T12:00:00.000Z');
    expect(windowsOf(result)).to.deep.equal(['2026-11-16T00:00:00.000Z', '2026-11-20T12:01:00.000Z', '2026-10-19T00:00:00.000Z', '2026-10-23T12:01:00.000Z']);
  });

  it('1m/previous_window in Europe/Berlin: this month against last month to the same day and clock time', async () => {
    const logs: Log[] = [
      ['2026-10-31T23:00:00.000Z', 1, 'current'], // 1 Nov 00:00 CET
      ['2026-11-10T12:34:00.000Z', 2, 'current'],
      ['2026-11-20T12:00:59.000Z', 3, 'current'], // 13:00:59 CET, now's minute
      ['2026-11-20T12:01:00.000Z', 100, 'neither'],
      ['2026-10-31T22:59:59.000Z', 100, 'neither'], // 31 Oct 23:59:59 CET: after the comparison window
      ['2026-09-30T21:59:59.000Z', 100, 'neither'],
      ['2026-09-30T22:00:00.000Z', 4, 'previous'], // 1 Oct 00:00 CEST
      ['2026-10-15T00:00:00.000Z', 5, 'previous'],
      ['2026-10-20T11:00:59.000Z', 6, 'previous'], // 13:00:59 CEST
      ['2026-10-20T11:01:00.000Z', 100, 'neither'],
    ];
    const result = await check('berlin-month', 'Europe/Berlin', logs, '1m', 'previous_window', '2026-11-20T12:00:00.000Z');
    expect(windowsOf(result)).to.deep.equal(['2026-10-31T23:00:00.000Z', '2026-11-20T12:01:00.000Z', '2026-09-30T22:00:00.000Z', '2026-10-20T11:01:00.000Z']);
  });

  it('empty windows: data null when both are, means null and percentages null on a zero base when one is', async () => {
    const eventId = await createEvent('quiet', 'UTC');
    const empty = await compare(eventId, '1d', 'previous_7d', '2026-11-20T12:00:00.000Z');
    expect(empty.data).to.equal(null);
    expect(windowsOf(empty)).to.deep.equal(['2026-11-20T00:00:00.000Z', '2026-11-20T12:01:00.000Z', '2026-11-13T00:00:00.000Z', '2026-11-13T12:01:00.000Z']);

    const result = await check('new', 'UTC', [['2026-11-20T11:00:00.000Z', 7, 'current']], '1d', 'previous_7d', '2026-11-20T12:00:00.000Z');
    expect(result.data).to.deep.equal({
      current_value: 7,
      current_count: 1,
      current_mean: 7,
      current_stddev: 0,
      previous_value: 0,
      previous_count: 0,
      previous_mean: null,
      previous_stddev: 0,
      value_delta: 7,
      count_delta: 1,
      mean_delta: null,
      value_pct_change: null,
      count_pct_change: null,
      mean_pct_change: null,
    });
  });

  it('sample standard deviation of 1e9 + noise of 1, merged across minutes, hours and days', async () => {
    const logs: Log[] = [];
    // Four days of the current week and the same hours last week, 1e9 + (−1, 0, 1): sd = sqrt(2/3 · n/(n−1)).
    for (let i = 0; i < 4 * 24 * 6; i++) {
      const offset = i * 10 * 60_000 + 7_000;
      logs.push([new Date(Date.parse('2026-11-16T00:00:00Z') + offset).toISOString(), 1e9 + ((i % 3) - 1), 'current']);
      logs.push([new Date(Date.parse('2026-11-09T00:00:00Z') + offset).toISOString(), 1e9 + 2 * ((i % 3) - 1), 'previous']);
    }
    const result = await check('huge', 'UTC', logs, '7d', 'previous_window', '2026-11-20T12:00:00.000Z');
    const n = 4 * 24 * 6;
    expect(result.data!.current_stddev).to.be.closeTo(Math.sqrt(((2 / 3) * n) / (n - 1)), 1e-6);
    expect(result.data!.previous_stddev).to.be.closeTo(2 * Math.sqrt(((2 / 3) * n) / (n - 1)), 1e-6);
    expect(result.data!.current_mean).to.be.closeTo(1e9, 1e-6);
  });

  it('reads hours and minutes instead of day rows that an ingest process bucketed under the old timezone', async () => {
    const eventId = await createEvent('moved', 'UTC');
    const stale = await directIngestor(svc);
    await ingestAt(stale, workspaceId, 'a', 'moved', [{ at: '2026-11-16T12:00:00.000Z', value: 1 }]); // caches UTC
    const put = await svc.request('PUT', `/v1.0/events/${eventId}`, { token, body: { event: 'moved', timezone: 'Asia/Tokyo' } });
    expect(put.status).to.equal(200);
    // The stale process files 19 Nov 16:00Z (20 Nov 01:00 in Tokyo, after the last whole day of
    // the window) under the UTC day of the 19th, inside the window's whole days: read from
    // that day row and from the hour rollup, it would count twice.
    await ingestAt(stale, workspaceId, 'a', 'moved', [
      { at: '2026-11-16T23:30:00.000Z', value: 2 },
      { at: '2026-11-19T16:00:00.000Z', value: 4 },
    ]);
    const result = await compare(eventId, '7d', 'previous_window', '2026-11-20T03:00:00.000Z'); // Friday noon in Tokyo
    expect(windowsOf(result).slice(0, 2)).to.deep.equal(['2026-11-15T15:00:00.000Z', '2026-11-20T03:01:00.000Z']);
    expectSameNumbers(result.data, expectedNumbers([1, 2, 4], []));
  });

  it('reads hours and minutes instead of a stale day row that starts before the first whole day and reaches into it', async () => {
    const eventId = await createEvent('moved-east', 'America/New_York');
    const stale = await directIngestor(svc);
    await ingestAt(stale, workspaceId, 'a', 'moved-east', [{ at: '2026-11-18T12:00:00.000Z', value: 1 }]); // caches America/New_York
    const put = await svc.request('PUT', `/v1.0/events/${eventId}`, { token, body: { event: 'moved-east', timezone: 'UTC' } });
    expect(put.status).to.equal(200);
    // The stale process files 9 Nov 03:00Z (8 Nov 22:00 in New York) under the New York day
    // that starts 8 Nov 05:00Z, before the first whole UTC day of the previous window (and of
    // everything read): read from the day rows of 9–12 Nov alone, this log would be missed.
    await ingestAt(stale, workspaceId, 'a', 'moved-east', [{ at: '2026-11-09T03:00:00.000Z', value: 2 }]);
    const result = await compare(eventId, '7d', 'previous_window', '2026-11-20T12:00:00.000Z');
    expect(windowsOf(result)).to.deep.equal(['2026-11-16T00:00:00.000Z', '2026-11-20T12:01:00.000Z', '2026-11-09T00:00:00.000Z', '2026-11-13T12:01:00.000Z']);
    expectSameNumbers(result.data, expectedNumbers([1], [2]));
  });
});
