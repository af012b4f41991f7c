// The analysts' SQL endpoint is a sandbox (issue 7): one SELECT (or an EXPLAIN of one) over
// this service's database. Every escape found by probing it gets 400 and has no effect;
// analysts' real queries keep working.
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { projectRoot } from '../../../src/paths.js';
import { sendLogs } from '../../helpers/logs.js';
import { startTestService, TEST_ADMIN_TOKEN, type TestService } from '../../helpers/service.js';
import { runScript } from '../../../scripts/lib/serviceProcess.js';
import { freshProcessEnv, testRoot, describeInOneRun } from '../../helpers/stores.js';

/** The SQL examples of docs/analyst-sql.md, one statement each, from every sql block of its Examples. */
function documentedExamples(): string[] {
  const doc = readFileSync(path.join(projectRoot, 'docs', 'analyst-sql.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Examples'));
  return [...section.matchAll(/```sql\n([\s\S]*?)```/g)]
    .flatMap((block) => block[1]!.split(/;\s*\n/))
    .map((s) => s.replace(/^--.*$/gm, '').trim())
    .filter((s) => s !== '');
}

describeInOneRun('analyst SQL (POST /v1.0/admin/sql)', function () {
  this.timeout(120_000);
  let svc: TestService;
  let database: string;
  const sql = (query: string) => svc.request('POST', '/v1.0/admin/sql', { token: TEST_ADMIN_TOKEN, body: { query } });

  before(async () => {
    svc = await startTestService();
    database = svc.stores.clickhouse.database;
    const token = await svc.tokenFor('analyst-ws');
    await sendLogs(svc, token, [
      { event: 'http.latency_ms', value: 12, meta: { route: '/a' } },
      { event: 'http.latency_ms', value: 30, meta: { route: '/b' } },
      { event: 'queue.depth', value: 4 },
    ]);
  });
  after(() => svc?.close());

  describe('refuses every escape with 400', () => {
    // A local HTTP server that would see any request a query makes from the host.
    let hits = 0;
    let target: http.Server;
    let targetUrl: string;
    before(async () => {
      target = http.createServer((_req, res) => {
        hits++;
        res.end('{"a":1}\n');
      });
      await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
      targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/x`;
    });
    after(() => new Promise((resolve) => target.close(resolve)));

    const outfile = path.join(testRoot, 'analyst-outfile.tsv');
    const escapes = () => [
      "DESCRIBE TABLE file('/etc/passwd', 'TSVRawWithNames')",
      "DESCRIBE TABLE file('/etc/passwd', 'JSONEachRow')",
      `DESCRIBE TABLE url('${targetUrl}', 'JSONEachRow', headers('X-Probe'='1'))`,
      `SELECT * FROM url('${targetUrl}', 'JSONEachRow')`,
      `SELECT 1 WHERE 1 IN url('${targetUrl}', 'JSONEachRow', 'a UInt8')`,
      `EXPLAIN SELECT * FROM url('${targetUrl}', 'JSONEachRow')`,
      "SELECT * FROM file('/etc/passwd', 'TSVRawWithNames')",
      "SELECT file('/etc/passwd')",
      'KILL QUERY WHERE 1 ASYNC',
      'USE system',
      'SELECT 1; SELECT 2',
      'SELECT 1; KILL QUERY WHERE 1 ASYNC',
      'SELECT * FROM system.tables',
      'SELECT * FROM INFORMATION_SCHEMA.tables',
      "SELECT 1 WHERE 'logs' IN system.tables",
      'WITH (SELECT count() FROM system.processes) AS n SELECT n',
      "SELECT * FROM remote('127.0.0.1', system.one)",
      'SELECT * FROM numbers(10)',
      "SELECT dictGet('d', 'x', toUInt64(1))",
      "SELECT joinGet('system.j', 'x', 1)",
      `SELECT count() FROM logs INTO OUTFILE '${outfile}'`,
      'SELECT count() FROM logs FORMAT JSON',
      'SELECT count() FROM logs SETTINGS readonly = 0',
      'INSERT INTO logs (event) VALUES (1)',
      'CREATE TABLE sneaky (x UInt8) ENGINE = Memory',
      'SET max_result_rows = 0',
      // A line break in an alias splits its node in EXPLAIN AST's output.
      "SELECT 1 AS `a\n TableIdentifier x` FROM file('/etc/passwd', 'TSVRawWithNames')",
      'SELECT 1 FROM logs AS `x\n  TableIdentifier logs` JOIN system.tables AS t ON 1',
    ];

    it('for table functions, other databases, several statements, KILL, USE and output options', async () => {
      const answers: string[] = [];
      for (const query of escapes()) {
        const res = await sql(query);
        answers.push(`${res.status} ${res.status === 400 ? '' : res.text.slice(0, 100)}`.trim() + ` ← ${query.replace(/\n/g, '\\n')}`);
      }
      expect(answers.filter((a) => !a.startsWith('400 '))).to.deep.equal([]);
      expect(hits, 'requests made from the host').to.equal(0);
      expect(existsSync(outfile), 'INTO OUTFILE wrote a file').to.equal(false);
    });

    it('names the rule that was broken, and leaks no file content', async () => {
      const res = await sql("DESCRIBE TABLE file('/etc/passwd', 'TSVRawWithNames')");
      expect(res.body.error.code).to.equal('sql_not_allowed');
      expect(res.text).not.to.include('root');
      const tf = await sql("SELECT * FROM file('/etc/passwd', 'TSVRawWithNames')");
      expect(tf.body.error).to.deep.include({ code: 'sql_not_allowed' });
      expect(tf.body.error.message).to.match(/table function/i);
      const other = await sql('SELECT * FROM system.tables');
      expect(other.body.error.message).to.include(database);
    });

    it('keeps later queries on this database after USE system', async () => {
      expect((await sql('USE system')).status).to.equal(400);
      const res = await sql('SELECT currentDatabase() AS db, count() AS n FROM logs');
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal([{ db: database, n: 3 }]);
    });
  });

  describe('runs analysts’ queries', () => {
    it('every SQL example of docs/analyst-sql.md', async () => {
      const examples = documentedExamples();
      expect(examples.length).to.be.at.least(6);
      for (const query of examples) {
        const res = await sql(query);
        expect(res.status, `${query}\n${res.text}`).to.equal(200);
        expect(res.body).to.be.an('array');
      }
    });

    it('joins of rollups, CTEs, unions, subqueries and names qualified with the database', async () => {
      const join = await sql(
        `SELECT h.event AS event, sum(h.count) AS hourly, any(d.count) AS daily
         FROM rollup_hour_v AS h INNER JOIN rollup_day_v AS d ON h.workspace_id = d.workspace_id AND h.event_id = d.event_id
         WHERE h.workspace_id = 'analyst-ws' GROUP BY event ORDER BY event`,
      );
      expect(join.status, join.text).to.equal(200);
      expect(join.body).to.deep.equal([
        { event: 'http.latency_ms', hourly: 2, daily: 2 },
        { event: 'queue.depth', hourly: 1, daily: 1 },
      ]);
      const cte = await sql(
        `WITH recent AS (SELECT event, value FROM \`${database}\`.logs WHERE workspace_id = 'analyst-ws')
         SELECT * FROM (
           SELECT event, sum(value) AS total FROM recent WHERE event IN (SELECT event FROM rollup_minute_v) GROUP BY event
           UNION ALL SELECT 'all' AS event, sum(value) AS total FROM logs
         ) ORDER BY event`,
      );
      expect(cte.status, cte.text).to.equal(200);
      expect(cte.body).to.deep.equal([
        { event: 'all', total: 46 },
        { event: 'http.latency_ms', total: 42 },
        { event: 'queue.depth', total: 4 },
      ]);
      const scalar = await sql("SELECT format('{} of {}', 'part', 'whole') AS s, JSONExtractString('{\"a\":\"b\"}', 'a') AS a");
      expect(scalar.body).to.deep.equal([{ s: 'part of whole', a: 'b' }]);
    });

    it('EXPLAIN of a SELECT, in its several kinds', async () => {
      for (const query of [
        'EXPLAIN SELECT count() FROM logs',
        'EXPLAIN PLAN header = 1 SELECT count() FROM logs',
        'EXPLAIN SYNTAX SELECT count() FROM rollup_hour_v WHERE workspace_id = 1',
        'EXPLAIN AST SELECT 1',
        'EXPLAIN PIPELINE SELECT count() FROM logs',
      ]) {
        const res = await sql(query);
        expect(res.status, `${query}\n${res.text}`).to.equal(200);
        expect(res.body.length).to.be.greaterThan(0);
        expect(res.body[0]).to.have.property('explain');
      }
    });

    it('still bounds the result size and reports engine errors as 400', async () => {
      const big = await sql('SELECT arrayJoin(range(1000)) AS a, arrayJoin(range(100)) AS b');
      expect(big.status).to.equal(400);
      expect(big.body.error.code).to.equal('sql_error');
      const typo = await sql('SELEC 1');
      expect(typo.status).to.equal(400);
      expect(typo.body.error.code).to.equal('sql_error');
      const missing = await sql('SELECT * FROM no_such_table');
      expect(missing.status).to.equal(400);
    });
  });

  it('npm run sql applies the same check when it opens DATA_DIR itself', async () => {
    const env = await freshProcessEnv();
    const refused = await runScript('scripts/sql.ts', ['KILL QUERY WHERE 1 ASYNC'], env);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include('Only one SELECT');
    const ok = await runScript('scripts/sql.ts', ['SELECT count() AS n FROM logs', '--json'], env);
    expect(ok.stderr).to.equal('');
    expect(ok.stdout).to.equal('{"n":0}\n');
  });
});
