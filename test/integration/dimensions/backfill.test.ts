// The backfill: a PUT rebuilds the series rollups from the raw logs, while records keep
// landing, and every record is counted once: summed over the series, the figures equal the
// event rollups'. A second PUT (other keys) rebuilds again; a DELETE removes the series rollups.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { SeriesBackfiller } from '../../../src/dimensions/backfill.js';
import { queryRows, sendLogs, type SentLog } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

describe('dimensions: backfill', function () {
  this.timeout(180_000);
  let svc: TestService;
  let token: string;
  const ws = 'backfill-ws';
  const now = Date.now();
  let n = 0;
  const batch = (size: number): SentLog[] =>
    Array.from({ length: size }, () => {
      n++;
      return {
        log_id: randomUUID(),
        agent: `a${n % 4}`,
        event: 'queue.ms',
        value: (n % 97) + 0.25,
        occurred_at: new Date(now - (n % 120) * 60_000).toISOString(),
        meta: { queue: `q${n % 3}`, zone: n % 2 === 0 ? 'eu' : 7 },
      };
    });

  before(async () => {
    svc = await startTestService({ env: { INGEST_FLUSH_INTERVAL_MS: '0' } });
    token = await svc.tokenFor(ws);
  });
  after(() => svc.close());

  const sums = async (period: string) => {
    const events = await queryRows(
      svc.stores.clickhouse,
      `SELECT agent, toString(bucket) AS b, toUInt64(count) AS c, value AS v, min AS lo, max AS hi FROM rollup_${period}_v
       WHERE workspace_id = {ws:String} AND event = 'queue.ms' ORDER BY agent, b`,
      { ws },
    );
    const series = await queryRows(
      svc.stores.clickhouse,
      `SELECT agent, toString(bucket) AS b, toUInt64(sum(count)) AS c, sum(value) AS v, min(min) AS lo, max(max) AS hi FROM series_${period}
       WHERE workspace_id = {ws:String} AND event = 'queue.ms' GROUP BY agent, b ORDER BY agent, b`,
      { ws },
    );
    return { events, series };
  };
  const done = () =>
    waitFor(
      'the backfill done',
      async () => ((await svc.request('GET', '/v1.0/dimensions/queue.ms', { token })).body.backfill?.status === 'done' ? true : null),
      60_000,
    );

  it('counts every record once, those before the PUT and those landing while it runs', async () => {
    await sendLogs(svc, token, batch(1500));
    // Records keep landing around the PUT, in concurrent senders.
    let sending = true;
    const senders = Array.from({ length: 3 }, async () => {
      while (sending) await sendLogs(svc, token, batch(100));
    });
    const put = await svc.request('PUT', '/v1.0/dimensions/queue.ms', { token, body: { keys: ['queue', 'zone'] } });
    expect(put.status, put.text).to.equal(200);
    expect(put.body.backfill.status).to.equal('running');
    await done();
    sending = false;
    await Promise.all(senders);
    await sendLogs(svc, token, batch(200));
    for (const period of ['minute', 'hour', 'day']) {
      const { events, series } = await sums(period);
      expect(series, period).to.deep.equal(events);
    }
    const labels = await queryRows<{ zone: string }>(
      svc.stores.clickhouse,
      `SELECT DISTINCT labels['zone'] AS zone FROM series_minute WHERE workspace_id = {ws:String} AND event = 'queue.ms' ORDER BY zone`,
      { ws },
    );
    expect(labels.map((l) => l.zone)).to.deep.equal(['7', 'eu']);
  });

  it('rebuilds under new keys, and a DELETE removes the series rollups', async () => {
    expect((await svc.request('PUT', '/v1.0/dimensions/queue.ms', { token, body: { keys: ['queue'] } })).status).to.equal(200);
    await done();
    const { events, series } = await sums('minute');
    expect(series).to.deep.equal(events);
    const keys = await queryRows<{ k: string[] }>(
      svc.stores.clickhouse,
      `SELECT DISTINCT mapKeys(labels) AS k FROM series_minute WHERE workspace_id = {ws:String} AND event = 'queue.ms'`,
      { ws },
    );
    expect(keys).to.deep.equal([{ k: ['queue'] }]);
    expect((await svc.request('DELETE', '/v1.0/dimensions/queue.ms', { token })).status).to.equal(204);
    await (svc.services.dimensions.backfill as SeriesBackfiller).settled();
    const [left] = await queryRows<{ n: number }>(
      svc.stores.clickhouse,
      "SELECT toUInt64(count()) AS n FROM series_rollups WHERE workspace_id = {ws:String} AND event = 'queue.ms'",
      { ws },
    );
    expect(left!.n).to.equal(0);
  });

  it('answers a DELETE whose clean-up ClickHouse refuses 204, as committed; the next declaration removes the rows left', async () => {
    await sendLogs(svc, token, batch(300));
    expect((await svc.request('PUT', '/v1.0/dimensions/queue.ms', { token, body: { keys: ['zone'] } })).status).to.equal(200);
    await done();
    const rowsLeft = async () =>
      (
        await queryRows<{ n: number }>(
          svc.stores.clickhouse,
          "SELECT toUInt64(count()) AS n FROM series_rollups WHERE workspace_id = {ws:String} AND event = 'queue.ms'",
          { ws },
        )
      )[0]!.n;
    expect(await rowsLeft()).to.be.greaterThan(0);
    // The real engine, with the one mutation of the removal refused, as a ClickHouse going away would.
    const client = svc.stores.clickhouse.client;
    const command = client.command.bind(client);
    client.command = (params) =>
      /^ALTER TABLE series_rollups DELETE WHERE workspace_id = \{ws:String\} AND event = \{event:String\}$/.test(params.query)
        ? Promise.reject(new Error('injected: the mutation is refused'))
        : command(params);
    try {
      expect((await svc.request('DELETE', '/v1.0/dimensions/queue.ms', { token })).status).to.equal(204);
    } finally {
      client.command = command;
    }
    expect((await svc.request('GET', '/v1.0/dimensions/queue.ms', { token })).status).to.equal(404);
    expect(await rowsLeft()).to.be.greaterThan(0);

    expect((await svc.request('PUT', '/v1.0/dimensions/queue.ms', { token, body: { keys: ['queue'] } })).status).to.equal(200);
    await done();
    const { events, series } = await sums('minute');
    expect(series).to.deep.equal(events);
  });
});
