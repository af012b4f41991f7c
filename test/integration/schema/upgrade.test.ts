// An upgrade keeps its data: a ClickHouse database written by the schema before the one-table
// rollups (migrations 0001–0004: a table per period) is opened by this release, which moves
// its rollups into `rollups` (0005). Every rollup row must be found again, through the
// analysts' per-period names and through the service's own reads, and the migration must
// change nothing when it runs again.
import { expect } from 'chai';
import { readRollupBuckets } from '../../../src/rollups/bucketRead.js';
import { PERIODS, type Period } from '../../../src/rollups/model.js';
import { openClickHouse, type ClickHouseStore } from '../../../src/stores/clickhouse.js';
import { migrateClickHouse, readMigrations, splitStatements } from '../../../src/stores/migrations.js';
import { queryRows } from '../../helpers/logs.js';
import { freshClickHouseOptions } from '../../helpers/stores.js';

const HOUR_MS = 3_600_000;
const EVENTS = [
  { ws: 'upgrade-a', event: '00000000-0000-4000-8000-00000000000a', timezone: 'Europe/Berlin' },
  { ws: 'upgrade-a', event: '00000000-0000-4000-8000-00000000000b', timezone: 'Asia/Kolkata' },
  { ws: 'upgrade-b', event: '00000000-0000-4000-8000-00000000000a', timezone: 'America/New_York' },
];

/**
 * Logs of every event, one every 7 minutes over the last 3 days, written by the ingest
 * path's statement shape (logs only; the views roll them up). Values are quarters, so sums
 * are exact whatever order rows are added in. Several inserts: rollup parts stay unmerged.
 * With a token, each insert carries its own insert_deduplication_token.
 */
async function insertLogs(ch: ClickHouseStore, now: number, token?: string): Promise<void> {
  for (const [i, e] of EVENTS.entries()) {
    for (let part = 0; part < 3; part++) {
      // Each insert's own token, as the ingest writer gives (a constant here: no quoting needed).
      const settings = token === undefined ? '' : `SETTINGS insert_deduplication_token = '${token}-${i}-${part}'`;
      await ch.client.command({
        query: `INSERT INTO logs (workspace_id, event_id, agent, event, log_id, value, occurred_at, received_at, day_start, meta) ${settings}
                SELECT {ws:String}, {event:UUID}, 'agent', 'upgrade.ms', generateUUIDv4(number), (number % 400) / 4 + {i:UInt8},
                       fromUnixTimestamp64Milli(toInt64({now:Int64} - (number * 3 + {part:UInt8}) * 7 * 60000)) AS t, t,
                       toDateTime(toStartOfDay(t, {tz:String}), 'UTC'), ''
                FROM numbers(200)`,
        query_params: { ws: e.ws, event: e.event, i, now, part, tz: e.timezone },
      });
    }
  }
}

interface BucketRow {
  workspace_id: string;
  event_id: string;
  bucket: string;
  agent: string;
  event: string;
  count: number;
  value: number;
  squares: number;
  min: number;
  max: number;
  stddev: number;
  quantiles: [number, number];
}

/** Every bucket of a period, its numbers final, as an analyst reads them by the period's name. */
const bucketsOf = (ch: ClickHouseStore, period: Period) =>
  queryRows<BucketRow>(
    ch,
    `SELECT workspace_id, toString(event_id) AS event_id, bucket, anyLast(agent) AS agent, anyLast(event) AS event,
            sum(count) AS count, sum(value) AS value, sum(squares) AS squares, min(min) AS min, max(max) AS max,
            if(count < 2, 0, sqrt(varSampStableMerge(variance))) AS stddev, quantilesTDigestMerge(0.95, 0.99)(quantiles) AS quantiles
     FROM rollup_${period} GROUP BY workspace_id, event_id, bucket ORDER BY workspace_id, event_id, bucket`,
  );

/** The same rows, with the numbers that merging states in another order may round differently left approximate. */
function expectSameBuckets(actual: BucketRow[], expected: BucketRow[], label: string): void {
  expect(actual.length, label).to.equal(expected.length);
  const exact = ({ stddev, quantiles, ...rest }: BucketRow) => rest;
  expect(actual.map(exact), label).to.deep.equal(expected.map(exact));
  for (const [i, row] of actual.entries()) {
    const want = expected[i]!;
    expect(row.stddev, label).to.be.closeTo(want.stddev, 1e-9 * Math.max(1, want.stddev));
    expect(row.quantiles[0], label).to.be.within(want.min, want.max);
    expect(row.quantiles[1], label).to.be.within(row.quantiles[0], want.max);
  }
}

const tables = (ch: ClickHouseStore) =>
  queryRows<{ name: string; engine: string }>(ch, 'SELECT name, engine FROM system.tables WHERE database = currentDatabase() ORDER BY name');

describe('ClickHouse upgrade to one rollup table (0005)', function () {
  this.timeout(120_000);
  const options = freshClickHouseOptions();
  const now = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 1000;
  const oldBuckets = new Map<Period, BucketRow[]>();
  let ch: ClickHouseStore;

  before(async () => {
    // The data dir as the previous release left it: its migrations only, then logs ingested.
    const old = await openClickHouse(options);
    try {
      expect(await migrateClickHouse(old, '0004')).to.deep.equal(['0001', '0002', '0003', '0004']);
      await insertLogs(old, now);
      expect((await tables(old)).filter((t) => t.name.startsWith('rollup_') && !t.name.endsWith('_v'))).to.deep.include({
        name: 'rollup_day',
        engine: 'AggregatingMergeTree',
      });
      for (const period of PERIODS) oldBuckets.set(period, await bucketsOf(old, period));
    } finally {
      await old.close();
    }
    ch = await openClickHouse(options);
  });
  after(() => ch.close());

  it('moves every rollup row, with its numbers, into the new shape', async () => {
    const pending = (await readMigrations('clickhouse')).map((f) => f.version).filter((v) => v > '0004');
    expect(await migrateClickHouse(ch)).to.deep.equal(pending);
    for (const period of PERIODS) {
      const rows = oldBuckets.get(period)!;
      expect(rows.length, period).to.be.greaterThan(period === 'day' ? 8 : 70);
      expectSameBuckets(await bucketsOf(ch, period), rows, period);
    }
    const [stored] = await queryRows<{ periods: string[] }>(ch, 'SELECT groupUniqArray(toString(period)) AS periods FROM rollups');
    expect([...stored!.periods].sort()).to.deep.equal(['day', 'hour', 'minute']);
  });

  it('serves the moved rows through the rollup read', async () => {
    for (const period of PERIODS) {
      for (const e of EVENTS) {
        const expected = oldBuckets
          .get(period)!
          .filter((r) => r.workspace_id === e.ws && r.event_id === e.event)
          .map((r) => ({ start: Date.parse(r.bucket), count: r.count, value: r.value, squares: r.squares, min: r.min, max: r.max }))
          .reverse();
        const read = await readRollupBuckets(ch, e.ws, e.event, period, { limit: 1000, offset: 0 });
        expect(read, `${period} ${e.ws} ${e.event}`).to.deep.equal(expected);
      }
    }
  });

  it('changes nothing when it runs again', async () => {
    const objects = await tables(ch);
    const [migration] = (await readMigrations('clickhouse')).filter((f) => f.version === '0005');
    for (const statement of splitStatements(migration!.sql)) await ch.client.command({ query: statement });
    expect(await tables(ch)).to.deep.equal(objects);
    for (const period of PERIODS) expectSameBuckets(await bucketsOf(ch, period), oldBuckets.get(period)!, period);
  });

  it('rolls up logs inserted after the upgrade, once, in every period', async () => {
    await insertLogs(ch, now - 3 * 86_400_000, 'upgrade-test');
    await insertLogs(ch, now - 3 * 86_400_000, 'upgrade-test'); // retried inserts: written once
    const [logs] = await queryRows<{ n: number }>(ch, 'SELECT count() AS n FROM logs');
    for (const period of PERIODS) {
      const [row] = await queryRows<{ n: number }>(ch, `SELECT sum(count) AS n FROM rollup_${period}_v`);
      expect(row!.n, period).to.equal(logs!.n);
    }
  });
});
