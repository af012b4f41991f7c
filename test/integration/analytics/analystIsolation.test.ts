// Analyst SQL beside the service's own work, on the real engine: heavy analyst queries (a
// four-way cross join that runs to the 30 s limit) run side by side up to
// ANALYST_MAX_CONCURRENT_QUERIES, the service's rollup reads are answered while they run, and
// past the bounded queue a query is refused at once with 429 analyst_busy and Retry-After.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { TestResponse } from '../../helpers/http.js';
import { eventIdOf } from '../../helpers/logs.js';
import { startTestService, TEST_ADMIN_TOKEN, type TestService } from '../../helpers/service.js';
import { describeInEmbeddedRunOnly } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';

const HEAVY = 'SELECT count() AS isolation_probe_n FROM logs AS a, logs AS b, logs AS c, logs AS d WHERE a.value + b.value + c.value + d.value = -1';

describeInEmbeddedRunOnly('analyst SQL cannot stall the service', function () {
  this.timeout(240_000);
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ env: { ANALYST_MAX_CONCURRENT_QUERIES: '2' } });
  });
  after(() => svc.close());

  const sql = (query: string) => svc.request('POST', '/v1.0/admin/sql', { token: TEST_ADMIN_TOKEN, body: { query } });

  it('runs ANALYST_MAX_CONCURRENT_QUERIES at once, answers rollup reads meanwhile, and refuses past its queue with 429', async () => {
    const token = await svc.tokenFor('analyst-isolation');
    const now = Date.now();
    const logs = Array.from({ length: 250 }, (_, i) => ({
      log_id: randomUUID(),
      agent: 'a',
      event: 'e',
      value: i,
      occurred_at: new Date(now - i * 1000).toISOString(),
    }));
    expect((await svc.request('POST', '/v1.0/logs', { token, body: logs })).status).to.equal(200);
    const eventId = await eventIdOf(svc, token, 'a', 'e');

    let heavyDone = 0;
    const heavy = [sql(HEAVY), sql(HEAVY)].map((p) => p.finally(() => heavyDone++));
    // Both run at once (one analyst session made them take turns).
    await waitFor('two analyst queries running at once', async () => {
      const result = await svc.stores.clickhouse.client.query({
        query: "SELECT count() AS n FROM system.processes WHERE query LIKE '%isolation_probe_n%' AND query NOT LIKE '%system.processes%'",
        format: 'JSONEachRow',
      });
      const [row] = await result.json<{ n: number }>();
      return Number(row?.n) === 2 ? true : null;
    });

    const latencies: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      const res = await svc.request('GET', `/v1.0/events/${eventId}/logs?period=minute`, { token });
      latencies.push(performance.now() - started);
      expect(res.status).to.equal(200);
      expect((res.body as unknown[]).length).to.be.greaterThan(0);
    }
    expect(heavyDone, 'every rollup read answered while both analyst queries still ran').to.equal(0);
    console.log(
      `      rollup reads while 2 analyst queries ran: max ${Math.max(...latencies).toFixed(0)} ms, ${latencies.map((l) => l.toFixed(0)).join(', ')}`,
    );

    // Two run, four (2 × 2) may wait; the rest are refused at once.
    const quick = await Promise.all(Array.from({ length: 8 }, () => sql('SELECT 1 AS one')));
    const refused = quick.filter((r) => r.status === 429);
    expect(refused).to.have.length(4);
    for (const r of refused) {
      expect(r.body.error.code).to.equal('analyst_busy');
      expect(Number(r.headers.get('retry-after'))).to.be.greaterThan(0);
    }
    expect(quick.filter((r) => r.status === 200).map((r) => r.body)).to.deep.equal(Array(4).fill([{ one: 1 }]));
    for (const res of (await Promise.all(heavy)) as TestResponse[]) expect(res.body.error?.code ?? 'none').to.be.oneOf(['sql_timeout', 'none']);
  });
});
