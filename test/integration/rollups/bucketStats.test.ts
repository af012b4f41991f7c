import { expect } from 'chai';
import { issueToken } from '../../../src/auth/tokens.js';
import {
  bucketSeriesSql,
  eventStatsOf,
  joinRanges,
  readBucketSeries,
  readBucketStats,
  readPeriodsBucketStats,
  statsOf,
} from '../../../src/rollups/bucketStats.js';
import { EMPTY_BUCKET } from '../../../src/rollups/model.js';
import { openStores, type Stores } from '../../../src/stores/index.js';
import { queryRows } from '../../helpers/logs.js';
import { freshStoreOptions, describeInOneRun } from '../../helpers/stores.js';
import { ingestAt } from '../evaluation/helpers.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

// The reads evaluation (and backtests) build on: a bucket and the bucket it is compared
// with in one query, and the series of an event's buckets as a subquery.
describeInOneRun('rollups: bucket statistics', function () {
  this.timeout(60_000);
  let stores: Stores;
  const ws = 'rollup-stats-ws';
  // A minute two days back, and the same minute a day earlier.
  const now = Math.floor(Date.now() / MINUTE) * MINUTE;
  const current = now - 2 * DAY;
  const dayBefore = current - DAY;
  let eventId: string;
  let otherEventId: string;

  before(async () => {
    stores = await openStores(await freshStoreOptions());
    await issueToken(stores.postgres, ws, undefined);
    await ingestAt(stores, ws, 'latency', [
      [1, current + 1000],
      [5, current + 2000],
      [3, current + 3000],
      [100, current + MINUTE + 1000],
      [7, dayBefore + 5000],
      [9, dayBefore + 6000],
      [50, dayBefore + 2 * MINUTE],
    ]);
    await ingestAt(stores, ws, 'other', [[4, current + 10]]);
    const ids = await queryRows<{ event: string; event_id: string }>(
      stores.clickhouse,
      'SELECT DISTINCT event, toString(event_id) AS event_id FROM logs WHERE workspace_id = {ws:String}',
      { ws },
    );
    eventId = ids.find((r) => r.event === 'latency')!.event_id;
    otherEventId = ids.find((r) => r.event === 'other')!.event_id;
  });
  after(() => stores.close());

  it('reads a bucket and its comparison bucket a day earlier in one query, and nothing between', async () => {
    const stats = await readBucketStats(stores.clickhouse, {
      period: 'minute',
      workspaceIds: new Set([ws]),
      eventIds: new Set([eventId, otherEventId]),
      ranges: [
        { from: current, to: current + MINUTE },
        { from: dayBefore, to: dayBefore + MINUTE },
      ],
    });
    expect(statsOf(stats, ws, eventId, current)).to.include({ count: 3, sum: 9, min: 1, max: 5 });
    expect(statsOf(stats, ws, eventId, dayBefore)).to.include({ count: 2, sum: 16, min: 7, max: 9 });
    expect(statsOf(stats, ws, otherEventId, current)).to.include({ count: 1, sum: 4 });
    const p99 = statsOf(stats, ws, eventId, current).p99!;
    expect(p99).to.be.within(3, 5);
    // Outside the ranges: not read, so empty.
    expect(statsOf(stats, ws, eventId, current + MINUTE)).to.deep.equal(EMPTY_BUCKET);
    expect(statsOf(stats, ws, eventId, dayBefore + 2 * MINUTE)).to.deep.equal(EMPTY_BUCKET);
    expect(statsOf(stats, 'another-ws', eventId, current)).to.deep.equal(EMPTY_BUCKET);
  });

  it('leaves the quantiles out when asked to, with the same counts, sums and extremes', async () => {
    const request = { period: 'minute' as const, workspaceIds: new Set([ws]), eventIds: new Set([eventId]), ranges: [{ from: current, to: current + MINUTE }] };
    const withQuantiles = statsOf(await readBucketStats(stores.clickhouse, request), ws, eventId, current);
    const without = statsOf(await readBucketStats(stores.clickhouse, { ...request, quantiles: false }), ws, eventId, current);
    expect(without).to.deep.equal({ ...withQuantiles, p95: null, p99: null });
    expect(withQuantiles.p95).to.be.a('number');
  });

  it('reads day buckets, which hold every log of their days', async () => {
    const stats = await readBucketStats(stores.clickhouse, {
      period: 'day',
      workspaceIds: new Set([ws]),
      eventIds: new Set([eventId]),
      ranges: [{ from: dayBefore - DAY, to: current + DAY }],
    });
    const utcDay = (t: number) => Math.floor(t / DAY) * DAY;
    const total = [...new Set([utcDay(current), utcDay(current + MINUTE), utcDay(dayBefore), utcDay(dayBefore + 2 * MINUTE)])]
      .map((d) => statsOf(stats, ws, eventId, d).count)
      .reduce((a, b) => a + b, 0);
    expect(total).to.equal(7);
  });

  it('reads several periods in one query, each over its own ranges, as a read of each would', async () => {
    const minute = { period: 'minute' as const, workspaceIds: new Set([ws]), eventIds: new Set([eventId]), ranges: [{ from: current, to: current + MINUTE }] };
    const hour = {
      period: 'hour' as const,
      workspaceIds: new Set([ws]),
      eventIds: new Set([eventId, otherEventId]),
      ranges: [{ from: dayBefore - DAY, to: current + DAY }],
      quantiles: false,
    };
    const together = await readPeriodsBucketStats(stores.clickhouse, [minute, hour]);
    expect([...together.keys()].sort()).to.deep.equal(['hour', 'minute']);
    expect(eventStatsOf(together.get('minute')!, ws, eventId)).to.deep.equal(eventStatsOf(await readBucketStats(stores.clickhouse, minute), ws, eventId));
    // Quantiles are read for both where one asks for them: the hour numbers are otherwise the same.
    const withoutQuantiles = (table: ReadonlyMap<string, ReadonlyMap<number, object>>) =>
      [...table].map(([key, buckets]) => [key, [...buckets].map(([start, b]) => [start, { ...b, p95: null, p99: null }])]);
    expect(withoutQuantiles(together.get('hour')!)).to.deep.equal(withoutQuantiles(await readBucketStats(stores.clickhouse, hour)));
    // Every log of the event lies in the hour request's span.
    expect([...eventStatsOf(together.get('hour')!, ws, eventId).values()].reduce((n, b) => n + b.count, 0)).to.equal(7);
    // The hour request's ranges are not read for the minute.
    expect(statsOf(together.get('minute')!, ws, eventId, current + MINUTE)).to.deep.equal(EMPTY_BUCKET);
  });

  it('gives the series of buckets with logs, oldest first, as a subquery window functions can run over', async () => {
    const request = { period: 'minute' as const, workspaceId: ws, eventId, from: dayBefore, to: current + 10 * MINUTE };
    const series = await readBucketSeries(stores.clickhouse, request);
    expect(series.map((b) => [b.start, b.count, b.sum])).to.deep.equal([
      [dayBefore, 2, 16],
      [dayBefore + 2 * MINUTE, 1, 50],
      [current, 3, 9],
      [current + MINUTE, 1, 100],
    ]);
    const { sql, params } = bucketSeriesSql(request);
    const rows = await queryRows<{ start: number; previous: number }>(
      stores.clickhouse,
      `SELECT s.start AS start, lagInFrame(s.sum) OVER (ORDER BY s.start) AS previous FROM (${sql}) AS s WHERE s.count >= {min:UInt32} ORDER BY start`,
      { ...params, min: 1 },
    );
    expect(rows.map((r) => r.previous)).to.deep.equal([0, 16, 50, 9]);
  });

  it('joins overlapping and touching ranges and drops empty ones', () => {
    expect(
      joinRanges([
        { from: 50, to: 60 },
        { from: 0, to: 10 },
        { from: 10, to: 20 },
        { from: 5, to: 8 },
        { from: 30, to: 30 },
      ]),
    ).to.deep.equal([
      { from: 0, to: 20 },
      { from: 50, to: 60 },
    ]);
  });
});
