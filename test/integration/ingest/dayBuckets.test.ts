import { expect } from 'chai';
import { localDayStart } from '../../../src/time/localDay.js';
import { newId } from '../../../src/ids.js';
import type { NewLogRecord } from '../../../src/ingest/journaledBatch.js';
import { ingestVisible, openTestIngestor } from '../../helpers/ingest.js';
import { eventIdOf, queryRows, sendLogs } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { describeInOneRun } from '../../helpers/stores.js';

const record = (event: string, value: number, occurredAt: string): NewLogRecord => ({
  logId: newId(),
  clientLogId: false,
  agent: 'tz',
  event,
  value,
  occurredAt: Date.parse(occurredAt),
  meta: '',
});

describeInOneRun('day buckets', function () {
  this.timeout(120_000);
  let svc: TestService;
  let token: string;
  const workspaceId = 'days-ws';

  before(async () => {
    svc = await startTestService();
    token = await svc.tokenFor(workspaceId);
  });
  after(() => svc.close());

  /** Day items of an event as {occurred_at: count}. */
  async function dayCounts(eventId: string): Promise<Record<string, number>> {
    const res = await svc.request('GET', `/v1.0/events/${eventId}/logs?period=day`, { token });
    expect(res.status).to.equal(200);
    return Object.fromEntries(res.body.map((i: { occurred_at: string; count: number }) => [i.occurred_at, i.count]));
  }

  // The HTTP API accepts logs at most 30 days old; these dates are fixed, so the records go
  // through the ingest pipeline below the HTTP layer, into the real tables and views.
  async function ingestDirectly(records: NewLogRecord[]): Promise<void> {
    const { ingestor } = await openTestIngestor(svc.stores);
    await ingestVisible(ingestor, workspaceId, records);
    await ingestor.close(0);
  }

  async function createEvent(event: string, timezone: string): Promise<string> {
    const res = await svc.request('POST', '/v1.0/events', { token, body: { event, agent: 'tz', timezone } });
    expect(res.status).to.equal(201);
    return res.body.event_id;
  }

  /** A UTC event created `daysAgo` days ago. */
  async function createOldEvent(event: string, daysAgo: number): Promise<string> {
    const eventId = await createEvent(event, 'UTC');
    await svc.stores.postgres.query('UPDATE event_definitions SET created_at = now() - make_interval(days => $2) WHERE event_id = $1', [eventId, daysAgo]);
    return eventId;
  }

  /** A day row of `count` records all equal to `value`, written straight into the rollup table. */
  async function insertDayRow(eventId: string, event: string, day: string, count: number, value: number): Promise<void> {
    await svc.stores.clickhouse.client.command({
      query: `INSERT INTO rollups
              SELECT 'days-ws', {event:UUID}, 'day', toDateTime({day:String}, 'UTC'), 'tz', {name:String}, {count:UInt64},
                     {count:UInt64} * any(x), {count:UInt64} * any(x) * any(x), any(x), any(x),
                     varSampStableState(x), quantilesTDigestState(0.95, 0.99)(x)
              FROM (SELECT toFloat64({value:Float64}) AS x)`,
      query_params: { event: eventId, day, name: event, count, value },
    });
  }

  it('start at local midnight across a 23-hour DST day (Europe/Berlin)', async () => {
    const eventId = await createEvent('berlin', 'Europe/Berlin');
    await ingestDirectly([
      record('berlin', 1, '2026-03-28T22:59:00Z'), // 23:59 CET on the 28th
      record('berlin', 1, '2026-03-28T23:00:00Z'), // 00:00 CET on the 29th, the 23-hour day
      record('berlin', 1, '2026-03-29T21:59:00Z'), // 23:59 CEST on the 29th
      record('berlin', 1, '2026-03-29T22:00:00Z'), // 00:00 CEST on the 30th
    ]);
    expect(await dayCounts(eventId)).to.deep.equal({
      '2026-03-27T23:00:00.000Z': 1,
      '2026-03-28T23:00:00.000Z': 2,
      '2026-03-29T22:00:00.000Z': 1,
    });
  });

  it('start at local midnight across a 25-hour DST day (America/New_York)', async () => {
    const eventId = await createEvent('newyork', 'America/New_York');
    await ingestDirectly([
      record('newyork', 1, '2026-11-01T03:59:00Z'), // 23:59 EDT on Oct 31
      record('newyork', 1, '2026-11-01T04:00:00Z'), // 00:00 EDT on Nov 1, the 25-hour day
      record('newyork', 1, '2026-11-02T04:59:00Z'), // 23:59 EST on Nov 1
      record('newyork', 1, '2026-11-02T05:00:00Z'), // 00:00 EST on Nov 2
    ]);
    expect(await dayCounts(eventId)).to.deep.equal({
      '2026-10-31T04:00:00.000Z': 1,
      '2026-11-01T04:00:00.000Z': 2,
      '2026-11-02T05:00:00.000Z': 1,
    });
  });

  it('start at 18:30 UTC in Asia/Kolkata (UTC+5:30)', async () => {
    const eventId = await createEvent('kolkata', 'Asia/Kolkata');
    await ingestDirectly([
      record('kolkata', 1, '2026-11-10T18:29:59Z'),
      record('kolkata', 1, '2026-11-10T18:30:00Z'),
      record('kolkata', 1, '2026-11-11T18:29:00Z'),
    ]);
    expect(await dayCounts(eventId)).to.deep.equal({ '2026-11-09T18:30:00.000Z': 1, '2026-11-10T18:30:00.000Z': 2 });
  });

  it('are re-bucketed when the event timezone changes, and later logs follow the new zone', async () => {
    const now = Date.now();
    const logs = Array.from({ length: 48 }, (_, i) => ({
      agent: 'tz',
      event: 'moving',
      value: i,
      occurred_at: new Date(now - (i * 30 + 1) * 60_000).toISOString(),
    }));
    await sendLogs(svc, token, logs);
    const eventId = await eventIdOf(svc, token, 'tz', 'moving');
    const utcDays = await dayCounts(eventId);
    expect(Object.keys(utcDays).every((d) => d.endsWith('T00:00:00.000Z'))).to.equal(true);

    const put = await svc.request('PUT', `/v1.0/events/${eventId}`, { token, body: { timezone: 'Asia/Kolkata' } });
    expect(put.status).to.equal(200);
    expect(put.body.timezone).to.equal('Asia/Kolkata');
    await sendLogs(svc, token, [{ agent: 'tz', event: 'moving', value: 100, occurred_at: new Date(now).toISOString() }]);

    const expected: Record<string, number> = {};
    for (const t of [...logs.map((l) => Date.parse(l.occurred_at)), now]) {
      const day = new Date(localDayStart('Asia/Kolkata', t)).toISOString();
      expected[day] = (expected[day] ?? 0) + 1;
    }
    expect(await dayCounts(eventId)).to.deep.equal(expected);
    expect(Object.keys(expected).every((d) => d.endsWith('T18:30:00.000Z'))).to.equal(true);
  });

  it('of an event older than the minute rollup keep their old days and rebuild the recent ones', async () => {
    const eventId = await createOldEvent('veteran', 200);
    // A day from before the minute rollup's 90 days: it exists only as a day row.
    await insertDayRow(eventId, 'veteran', '2026-01-05 00:00:00', 1, 7);
    const now = Date.now();
    const recent = [10, 3].map((daysAgo) => new Date(Math.floor(now / 86_400_000) * 86_400_000 - daysAgo * 86_400_000 + 12 * 3_600_000).toISOString());
    await ingestDirectly(recent.map((t) => record('veteran', 1, t)));

    const put = await svc.request('PUT', `/v1.0/events/${eventId}`, { token, body: { timezone: 'Asia/Kolkata' } });
    expect(put.status).to.equal(200);
    const expected: Record<string, number> = { '2026-01-05T00:00:00.000Z': 1 };
    for (const t of recent) expected[new Date(localDayStart('Asia/Kolkata', Date.parse(t))).toISOString()] = 1;
    expect(await dayCounts(eventId)).to.deep.equal(expected);
  });

  it('of a long-idle old event survive a timezone change untouched', async () => {
    const eventId = await createOldEvent('sleeper', 300);
    await insertDayRow(eventId, 'sleeper', '2026-02-01 00:00:00', 3, 2);
    expect((await svc.request('PUT', `/v1.0/events/${eventId}`, { token, body: { timezone: 'Europe/Berlin' } })).status).to.equal(200);
    expect(await dayCounts(eventId)).to.deep.equal({ '2026-02-01T00:00:00.000Z': 3 });
  });

  it('agree with ClickHouse toStartOfDay in many zones over two years', async () => {
    const zones = [
      'Europe/Berlin',
      'Asia/Kolkata',
      'America/Santiago',
      'America/New_York',
      'Australia/Lord_Howe',
      'Asia/Kathmandu',
      'Pacific/Chatham',
      'America/Havana',
      'Asia/Beirut',
      'Europe/Dublin',
    ];
    const instants: number[] = [];
    for (let t = Date.UTC(2025, 0, 1); t < Date.UTC(2027, 0, 1); t += 7 * 3_600_000 + 1234) instants.push(t);
    for (const tz of zones) {
      const rows = await queryRows<{ s: number }>(
        svc.stores.clickhouse,
        `SELECT toUnixTimestamp(toStartOfDay(fromUnixTimestamp64Milli(t, 'UTC'), {tz:String})) AS s FROM (SELECT arrayJoin({ts:Array(Int64)}) AS t)`,
        { tz, ts: instants },
      );
      const mismatches = instants.filter((t, i) => localDayStart(tz, t) / 1000 !== rows[i]!.s);
      expect(
        mismatches.map((t) => new Date(t).toISOString()),
        tz,
      ).to.deep.equal([]);
    }
  });
});
