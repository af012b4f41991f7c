// A record's series, derived as its row is written, and the series rollups: the declared keys'
// values from meta become the series' labels; summed over the series, the figures are the
// event rollups'; a retried insert is stored once; past DIMENSION_MAX_SERIES the agent's
// overflow series keeps the totals exact.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { insertBody, LOG_COLUMNS, logsInsertSettings } from '../../../src/ingest/insertRows.js';
import { payloadOfRecords } from '../../../src/ingest/journaledBatch.js';
import { SeriesLabeller } from '../../../src/dimensions/seriesLabeller.js';
import { createLogger } from '../../../src/logger.js';
import { createMetrics } from '../../../src/metrics.js';
import { rebuildRollupStretches } from '../../../src/rollups/rangeRebuild.js';
import { queryRows, sendLogs, type SentLog } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';

interface Figures {
  agent: string;
  labels: Record<string, string>;
  bucket: string;
  count: number;
  value: number;
  squares: number;
  min: number;
  max: number;
}

const seriesRows = (svc: TestService, ws: string, event: string, period = 'minute') =>
  queryRows<Figures>(
    svc.stores.clickhouse,
    `SELECT agent, labels, toString(bucket) AS bucket, toUInt64(count) AS count, value, squares, min, max FROM series_${period}
     WHERE workspace_id = {ws:String} AND event = {event:String} ORDER BY agent, bucket, toString(labels)`,
    { ws, event },
  );

/** The event rollups' figures per agent and bucket, and the series' summed the same way. */
async function bothSums(svc: TestService, ws: string, event: string, period: string) {
  const events = await queryRows<Omit<Figures, 'labels'>>(
    svc.stores.clickhouse,
    `SELECT agent, toString(bucket) AS bucket, toUInt64(count) AS count, value, squares, min, max FROM rollup_${period}_v
     WHERE workspace_id = {ws:String} AND event = {event:String} ORDER BY agent, bucket`,
    { ws, event },
  );
  const series = await queryRows<Omit<Figures, 'labels'>>(
    svc.stores.clickhouse,
    `SELECT agent, toString(bucket) AS bucket, toUInt64(sum(count)) AS count, sum(value) AS value, sum(squares) AS squares, min(min) AS min, max(max) AS max
     FROM series_${period} WHERE workspace_id = {ws:String} AND event = {event:String} GROUP BY agent, bucket ORDER BY agent, bucket`,
    { ws, event },
  );
  return { events, series };
}

describe('series rollups', function () {
  this.timeout(120_000);
  let svc: TestService;
  let token: string;
  const ws = 'series-ws';
  const now = Date.now();
  const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();

  before(async () => {
    svc = await startTestService({ env: { INGEST_FLUSH_INTERVAL_MS: '0', DIMENSION_MAX_SERIES: '5' } });
    token = await svc.tokenFor(ws);
  });
  after(() => svc.close());

  it("labels each record with its declared keys' values from meta, as strings", async () => {
    expect((await svc.request('PUT', '/v1.0/dimensions/http.latency', { token, body: { keys: ['route', 'code'] } })).status).to.equal(200);
    const metas: unknown[] = [
      { route: '/a', code: '500' },
      { route: '/a', code: 500 },
      { route: '/a', code: true, other: 'x' },
      { route: null, code: { nested: 1 } },
      { code: [1, 2] },
      {},
    ];
    await sendLogs(
      svc,
      token,
      metas.map((meta, i) => ({ agent: 'api-1', event: 'http.latency', value: i + 1, occurred_at: at(2), meta })),
    );
    await sendLogs(svc, token, [{ agent: 'api-2', event: 'http.latency', value: 7, occurred_at: at(2) }]);
    const rows = await seriesRows(svc, ws, 'http.latency');
    const counted = rows.map((r) => [r.agent, r.labels.route, r.labels.code, r.count, r.value]);
    expect(counted).to.have.deep.members([
      ['api-1', '/a', '500', 2, 3], // the string and the number 500 are the same label value
      ['api-1', '/a', 'true', 1, 3],
      ['api-1', '', '', 3, 15], // null, an object, an array, absent: ''
      ['api-2', '', '', 1, 7], // no meta at all
    ]);
  });

  it("answers docs/fleets.md's analyst example on the series views", async () => {
    const rows = await queryRows<{ route: string; requests: number; error_share: number }>(
      svc.stores.clickhouse,
      `SELECT labels['route'] AS route, sum(count) AS requests,
              sumIf(count, labels['code'] LIKE '5%') / sum(count) AS error_share
       FROM series_hour
       WHERE event = 'http.latency' AND bucket >= now() - INTERVAL 1 DAY
       GROUP BY route ORDER BY error_share DESC LIMIT 10`,
    );
    expect(rows.map((r) => [r.route, Number(r.requests), r.error_share])).to.deep.equal([
      ['/a', 3, 2 / 3],
      ['', 4, 0],
    ]);
  });

  it('sums over the series to the event rollups, in every period, for many records in many inserts', async () => {
    const logs: SentLog[] = [];
    for (let i = 0; i < 2000; i++) {
      const value = Math.round((Math.random() * 2000 - 500) * 4) / 4 + 0;
      logs.push({
        log_id: randomUUID(),
        agent: `a${i % 3}`,
        event: 'http.latency',
        value,
        occurred_at: at(Math.floor(Math.random() * 180)),
        meta: { route: `/r${i % 2}`, code: i % 5 === 0 ? 500 : 200 },
      });
    }
    const chunks = Array.from({ length: 8 }, (_, i) => logs.slice(i * 250, (i + 1) * 250));
    await Promise.all(chunks.map((chunk) => sendLogs(svc, token, chunk)));
    for (const period of ['minute', 'hour', 'day']) {
      const { events, series } = await bothSums(svc, ws, 'http.latency', period);
      expect(series, period).to.deep.equal(events);
    }
  });

  it('stores a retried insert once in the series rollups too', async () => {
    const labeller = new SeriesLabeller(svc.stores.postgres, 100, createMetrics(), createLogger('silent'));
    await labeller.refresh();
    const eventId = randomUUID();
    const records = Array.from({ length: 50 }, (_, i) => ({
      logId: randomUUID(),
      clientLogId: true,
      agent: 'retry',
      event: 'http.latency',
      value: i,
      occurredAt: now - 60_000,
      meta: JSON.stringify({ route: '/retry', code: 200 }),
    }));
    const body = insertBody([payloadOfRecords(ws, now, now, records, () => eventId)], () => 'UTC', 'records', labeller);
    const token = randomUUID();
    for (let attempt = 0; attempt < 3; attempt++) {
      await svc.stores.clickhouse.insertBytes({ table: 'logs', columns: LOG_COLUMNS, format: 'JSONCompactEachRow', settings: logsInsertSettings(token), body });
    }
    const rows = (await seriesRows(svc, ws, 'http.latency')).filter((r) => r.agent === 'retry');
    expect(rows.map((r) => [r.labels, r.count, r.value])).to.deep.equal([[{ code: '200', route: '/retry' }, 50, 1225]]);
  });

  it("repairs the series rollups with the event rollups when an insert was cut short (a kill's interrupted block)", async () => {
    const eventId = (
      await queryRows<{ id: string }>(
        svc.stores.clickhouse,
        "SELECT toString(any(event_id)) AS id FROM logs WHERE workspace_id = {ws:String} AND event = 'http.latency' AND agent = 'a1'",
        { ws },
      )
    )[0]!.id;
    // As if the series views had missed the definition's inserts: its rows gone from series_rollups.
    await svc.stores.clickhouse.client.command({
      query: 'DELETE FROM series_rollups WHERE workspace_id = {ws:String} AND event_id = {id:UUID}',
      query_params: { ws, id: eventId },
    });
    expect((await bothSums(svc, ws, 'http.latency', 'minute')).series).to.not.deep.equal((await bothSums(svc, ws, 'http.latency', 'minute')).events);
    await rebuildRollupStretches(svc.stores.clickhouse, [{ workspaceId: ws, eventId, fromMs: now - 4 * 3_600_000, toMs: now, timezone: 'UTC' }]);
    for (const period of ['minute', 'hour', 'day']) {
      const { events, series } = await bothSums(svc, ws, 'http.latency', period);
      expect(series, period).to.deep.equal(events);
    }
  });

  it("re-buckets a definition's series day rows with its day rollups when its timezone changes", async () => {
    const eventId = (
      await queryRows<{ id: string }>(
        svc.stores.clickhouse,
        "SELECT toString(any(event_id)) AS id FROM logs WHERE workspace_id = {ws:String} AND event = 'http.latency' AND agent = 'a2'",
        { ws },
      )
    )[0]!.id;
    const res = await svc.request('PUT', `/v1.0/events/${eventId}`, { token, body: { timezone: 'Asia/Kolkata' } });
    expect(res.status, res.text).to.equal(200);
    const { events, series } = await bothSums(svc, ws, 'http.latency', 'day');
    expect(series).to.deep.equal(events);
    expect(events.some((e) => e.agent === 'a2' && e.bucket.endsWith('18:30:00'))).to.equal(true);
  });

  it('counts records of series past DIMENSION_MAX_SERIES in the agent overflow series, totals exact', async () => {
    expect((await svc.request('PUT', '/v1.0/dimensions/job.ms', { token, body: { keys: ['job'] } })).body.overflowing).to.equal(false);
    const logs = Array.from({ length: 40 }, (_, i) => ({ agent: 'worker', event: 'job.ms', value: i, occurred_at: at(1), meta: { job: `j${i % 10}` } }));
    await sendLogs(svc, token, logs);
    const rows = await seriesRows(svc, ws, 'job.ms');
    expect(rows).to.have.length(6);
    const overflow = rows.filter((r) => r.labels.job === '__overflow__');
    expect(overflow).to.have.length(1);
    expect(rows.reduce((s, r) => s + r.count, 0)).to.equal(40);
    expect(rows.reduce((s, r) => s + r.value, 0)).to.equal(780);
    const { events, series } = await bothSums(svc, ws, 'job.ms', 'minute');
    expect(series).to.deep.equal(events);
    // Records of series already seen keep their own series.
    await sendLogs(svc, token, [
      { agent: 'worker', event: 'job.ms', value: 1, occurred_at: at(1), meta: { job: rows.find((r) => r.labels.job !== '__overflow__')!.labels.job } },
    ]);
    expect((await seriesRows(svc, ws, 'job.ms')).filter((r) => r.labels.job === '__overflow__')[0]!.count).to.equal(overflow[0]!.count);
    const metrics = await svc.request('GET', '/metrics');
    expect(metrics.text).to.match(/alertmon_series_overflow_records_total [1-9]/);
    const dimension = await svc.request('GET', '/v1.0/dimensions/job.ms', { token });
    expect(dimension.body.overflowing).to.equal(true);
  });
});
