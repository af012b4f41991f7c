import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../../helpers/service.js';
import { eventIdOf, queryRows, sendLogs, totalsOf, type SentLog, type Totals } from '../../helpers/logs.js';
import { describeInOneRun } from '../../helpers/stores.js';

const PERIOD_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
type Period = keyof typeof PERIOD_MS;

/** Expected rollup items per bucket start (ISO), computed from what was sent (UTC event). */
function expectedBuckets(logs: readonly SentLog[], period: Period): Map<string, Totals> {
  const groups = new Map<string, number[]>();
  for (const log of logs) {
    const t = Date.parse(log.occurred_at!);
    const start = new Date(Math.floor(t / PERIOD_MS[period]) * PERIOD_MS[period]).toISOString();
    groups.set(start, [...(groups.get(start) ?? []), log.value]);
  }
  return new Map([...groups].map(([start, values]) => [start, totalsOf(values)]));
}

async function readAllBuckets(svc: TestService, token: string, eventId: string, period: Period) {
  const items: Record<string, unknown>[] = [];
  for (let offset = 0; ; offset += 1000) {
    const res = await svc.request('GET', `/v1.0/events/${eventId}/logs?period=${period}&limit=1000&offset=${offset}`, { token });
    expect(res.status).to.equal(200);
    items.push(...res.body);
    if (res.body.length < 1000) return items;
  }
}

describeInOneRun('rollups', function () {
  this.timeout(120_000);
  let svc: TestService;
  let token: string;
  const ws = 'rollups-ws';
  const logs: SentLog[] = [];
  const now = Date.now();

  before(async () => {
    // Small flushes, so that the data arrives in many inserts and many parts.
    svc = await startTestService({ env: { INGEST_FLUSH_INTERVAL_MS: '0' } });
    token = await svc.tokenFor(ws);
    for (let i = 0; i < 3000; i++) {
      // Multiples of 1/4 are exact in binary: sums and squares are exact whatever the order.
      // (+ 0 turns -0 into 0, which is what JSON sends anyway.)
      const value = Math.round((Math.random() * 2000 - 500) * 4) / 4 + 0;
      const minutesAgo = Math.floor(Math.random() * 26 * 60);
      logs.push({
        log_id: randomUUID(),
        agent: 'roll',
        event: 'latency_ms',
        value,
        occurred_at: new Date(now - minutesAgo * 60_000 - Math.floor(Math.random() * 59_000)).toISOString(),
      });
    }
    // Twelve concurrent senders of 250 records each.
    const chunks = Array.from({ length: 12 }, (_, i) => logs.slice(i * 250, (i + 1) * 250));
    await Promise.all(chunks.map((chunk) => sendLogs(svc, token, chunk)));
  });
  after(() => svc.close());

  for (const period of ['minute', 'hour', 'day'] as const) {
    it(`keeps exact count, sum, squares, min and max per ${period}, newest first`, async () => {
      const eventId = await eventIdOf(svc, token, 'roll', 'latency_ms');
      const items = await readAllBuckets(svc, token, eventId, period);
      const expected = expectedBuckets(logs, period);
      expect(items.map((i) => i.occurred_at)).to.deep.equal([...expected.keys()].sort().reverse());
      for (const item of items) {
        expect(item).to.include({ event_id: eventId, agent: 'roll', event: 'latency_ms', period });
        const want = expected.get(item.occurred_at as string)!;
        expect({ count: item.count, value: item.value, squares: item.squares, min: item.min, max: item.max }, String(item.occurred_at)).to.deep.equal(want);
      }
    });
  }

  it('stays exact after ClickHouse merges the parts', async () => {
    await svc.stores.clickhouse.client.command({ query: 'OPTIMIZE TABLE rollups FINAL' });
    const eventId = await eventIdOf(svc, token, 'roll', 'latency_ms');
    const items = await readAllBuckets(svc, token, eventId, 'hour');
    const expected = expectedBuckets(logs, 'hour');
    for (const item of items) expect(item.count).to.equal(expected.get(item.occurred_at as string)!.count);
    const [active] = await queryRows<{ parts: number }>(
      svc.stores.clickhouse,
      "SELECT count() AS parts FROM system.parts WHERE database = currentDatabase() AND table = 'rollups' AND active",
    );
    expect(active!.parts).to.be.at.most(2); // one per monthly partition
  });

  it('gives analysts final numbers in the rollup views', async () => {
    const rows = await queryRows<{ count: number; value: number; mean: number; stddev: number; p95: number; p99: number }>(
      svc.stores.clickhouse,
      'SELECT sum(count) AS count, sum(value) AS value FROM rollup_day_v WHERE workspace_id = {ws:String}',
      { ws },
    );
    const all = totalsOf(logs.map((l) => l.value));
    expect(rows).to.deep.equal([{ count: all.count, value: all.value }]);
    const [minute] = await queryRows<Record<string, number>>(
      svc.stores.clickhouse,
      'SELECT count, value, mean, stddev, p95, p99, min, max FROM rollup_minute_v WHERE workspace_id = {ws:String} ORDER BY count DESC LIMIT 1',
      { ws },
    );
    expect(minute!.mean).to.be.closeTo(minute!.value! / minute!.count!, 1e-9);
    expect(minute!.p99).to.be.at.least(minute!.p95!);
    expect(minute!.p99).to.be.at.most(minute!.max!);
  });

  it('narrows the rollup read with from/to and pages with limit/offset', async () => {
    const eventId = await eventIdOf(svc, token, 'roll', 'latency_ms');
    const hours = [...expectedBuckets(logs, 'hour').keys()].sort();
    const from = hours[3]!;
    const to = hours[7]!;
    const ranged = await svc.request('GET', `/v1.0/events/${eventId}/logs?period=hour&from=${from}&to=${to}`, { token });
    expect(ranged.body.map((i: { occurred_at: string }) => i.occurred_at)).to.deep.equal(hours.slice(3, 7).reverse());
    const page = await svc.request('GET', `/v1.0/events/${eventId}/logs?period=hour&limit=2&offset=1`, { token });
    expect(page.body.map((i: { occurred_at: string }) => i.occurred_at)).to.deep.equal(hours.slice().reverse().slice(1, 3));
  });

  it('refuses an unknown period and bad paging with 400 (a missing period reads minutes)', async () => {
    const eventId = await eventIdOf(svc, token, 'roll', 'latency_ms');
    expect((await svc.request('GET', `/v1.0/events/${eventId}/logs`, { token })).status, 'no period').to.equal(200);
    for (const query of [
      '?period=week',
      '?period=hour&limit=1001',
      '?period=hour&limit=-1',
      '?period=hour&offset=1.5',
      '?period=hour&from=yesterday',
      '?period=hour&perod=x',
    ]) {
      const res = await svc.request('GET', `/v1.0/events/${eventId}/logs${query}`, { token });
      expect(res.status, query).to.equal(400);
      expect(res.body.error.details.length, query).to.be.greaterThan(0);
    }
  });
});

describeInOneRun('quantile sketches', function () {
  this.timeout(120_000);
  let svc: TestService;
  let token: string;
  const values: number[] = [];

  before(async () => {
    svc = await startTestService();
    token = await svc.tokenFor('quantile-ws');
    // Log-normal: a long right tail, where a normal approximation is far off.
    const hourStart = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3 * 3_600_000;
    const logs: SentLog[] = [];
    for (let i = 0; i < 20_000; i++) {
      const gaussian = Math.sqrt(-2 * Math.log(1 - Math.random())) * Math.cos(2 * Math.PI * Math.random());
      const value = Math.exp(1.5 * gaussian);
      values.push(value);
      logs.push({ event: 'skewed', value, occurred_at: new Date(hourStart + Math.floor(Math.random() * 3_599_000)).toISOString() });
    }
    await sendLogs(svc, token, logs);
    values.sort((a, b) => a - b);
  });
  after(() => svc.close());

  /** Fraction of the data at or below x. */
  const rankOf = (x: number) => {
    let lo = 0;
    let hi = values.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[mid]! <= x) lo = mid + 1;
      else hi = mid;
    }
    return lo / values.length;
  };

  for (const [period, table] of [
    ['minute', 'rollup_minute'],
    ['hour', 'rollup_hour'],
    ['day', 'rollup_day'],
  ] as const) {
    it(`estimates p95 and p99 within 2% rank error from the ${period} sketches`, async () => {
      const [row] = await queryRows<{ q: [number, number] }>(
        svc.stores.clickhouse,
        `SELECT quantilesTDigestMerge(0.95, 0.99)(quantiles) AS q FROM ${table} WHERE workspace_id = 'quantile-ws'`,
      );
      const [p95, p99] = row!.q;
      expect(rankOf(p95), `p95 estimate ${p95}`).to.be.closeTo(0.95, 0.02);
      expect(rankOf(p99), `p99 estimate ${p99}`).to.be.closeTo(0.99, 0.02);
    });
  }
});
