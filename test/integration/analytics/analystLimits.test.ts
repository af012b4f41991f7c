// The analysts' SQL is bounded in memory: one admin query (groupArray(toString(x)) over
// range(3e8)) once took the service from 0.8 GB to 8.4 GB and ran 45 s past its 30 s limit.
// Here the bound is set low (ANALYST_MAX_MEMORY_BYTES = 64 MiB) so that a query of the same
// shape, 10 times smaller, shows it cheaply: refused with 400 and a clear message, the
// process's memory never far above where it was, and the service answering as before.
import { expect } from 'chai';
import { startTestService, TEST_ADMIN_TOKEN, type TestService } from '../../helpers/service.js';
import { freshStoreOptions } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';

const LIMIT_BYTES = 64 * 1024 ** 2;
const HEAVY = 'SELECT length(groupArray(toString(x))) AS n FROM (SELECT arrayJoin(range(30000000)) AS x)';
const rss = () => process.memoryUsage.rss();

describe('analyst SQL memory bound', function () {
  this.timeout(120_000);
  let svc: TestService;
  const sql = (query: string) => svc.request('POST', '/v1.0/admin/sql', { token: TEST_ADMIN_TOKEN, body: { query } });

  before(async () => {
    const base = await freshStoreOptions();
    svc = await startTestService({
      storeOptions: { ...base, clickhouse: { ...base.clickhouse, analyst: { maxMemoryBytes: LIMIT_BYTES, maxConcurrentQueries: 1 } } },
    });
  });
  after(() => svc?.close());

  it('answers a query that would exceed the bound with 400 sql_memory_limit, and memory stays near where it was', async () => {
    expect((await sql('SELECT 1 AS one')).body).to.deep.equal([{ one: 1 }]);
    const before = rss();
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss());
    }, 5);
    let res: Awaited<ReturnType<typeof sql>>;
    try {
      res = await sql(HEAVY);
    } finally {
      clearInterval(sampler);
    }
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error.code).to.equal('sql_memory_limit');
    expect(res.body.error.message).to.match(/more than 64 MiB of memory/);
    // Unbounded, this query takes the process about a gigabyte up; bounded, a few times the limit at most.
    expect(peak - before, 'growth while the query ran').to.be.below(4 * LIMIT_BYTES);
    // The memory the query did take is given back: the process returns under its level before + the limit.
    await waitFor('memory given back', async () => (rss() < before + LIMIT_BYTES ? true : null), 30_000);
    expect((await sql('SELECT 2 AS two')).body).to.deep.equal([{ two: 2 }]);
  });

  it('runs analyst queries one at a time here (ANALYST_MAX_CONCURRENT_QUERIES = 1), two more wait and are answered, the rest get 429', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => sql(`SELECT ${i} AS i, count() AS n FROM (SELECT arrayJoin(range(100000)))`)));
    const answered = answers.filter((a) => a.status === 200);
    // The first three to arrive run or wait, and are answered; one beyond the queue gets 429 at once.
    expect(answered.length).to.be.at.least(3);
    for (const a of answered) expect(a.body[0].n).to.equal(100000);
    for (const a of answers.filter((a) => a.status !== 200)) {
      expect(a.status).to.equal(429);
      expect(a.body.error.code).to.equal('analyst_busy');
    }
  });
});
