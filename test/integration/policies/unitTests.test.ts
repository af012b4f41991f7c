// Policy unit tests (POST /v1.0/policies/test): pending runs, hysteresis, no data, compare_to
// and a fleet policy grouped by agent, each with a case that passes and one that fails; and
// nothing stored anywhere (every table of both stores counted before and after). Then the
// command line on a file with a passing and a failing case.
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { projectRoot } from '../../../src/paths.js';
import type { Json } from '../../helpers/http.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const WORKER_BOOKKEEPING = new Set(['handoff_cursor', 'worker_leases']);
const S = Date.parse('2026-11-02T10:00:00Z');
const at = (minutes: number) => new Date(S + minutes * 60_000).toISOString();
const series = (values: string, agent = 'web', meta?: Record<string, string>) => ({ agent, ...(meta ? { meta } : {}), start: at(0), interval: '1m', values });

describe('policy unit tests', function () {
  this.timeout(180_000);
  let svc: TestService;
  let token: string;
  let eventId: string;

  before(async function () {
    this.timeout(600_000);
    svc = await startTestService();
    token = await svc.tokenFor('unit-tests-ws');
    eventId = (await svc.request('POST', '/v1.0/events', { token, body: { event: 'latency', agent: 'web' } })).body.event_id;
    await svc.request('POST', '/v1.0/events', { token, body: { event: 'jobs', agent: 'a' } });
  });
  after(async () => svc?.close());

  const rule = (fields: Record<string, unknown>) => ({
    event_id: eventId,
    title: 'Test',
    period: 'minute',
    aggregate: 'average',
    condition: 'gt',
    threshold: 10,
    severity: 'warning',
    ...fields,
  });
  const run = async (body: Json) => {
    const res = await svc.request('POST', '/v1.0/policies/test', { token, body });
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };

  /** Every table's row count in Postgres and in ClickHouse. */
  const counts = async () => {
    const pg = svc.stores.postgres;
    const tables = await pg.query<{ t: string }>(
      "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
    );
    const out: Record<string, number> = {};
    // The service's own workers keep their bookkeeping on their schedule, whatever a test does: the handoff worker's cursor, the leases.
    for (const { t } of tables.filter(({ t }) => !WORKER_BOOKKEEPING.has(t)))
      out[`pg.${t}`] = (await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${t}"`))[0]!.n;
    const ch = svc.stores.clickhouse;
    const res = await ch.client.query({
      query: "SELECT name FROM system.tables WHERE database = currentDatabase() AND engine NOT LIKE '%View%'",
      format: 'JSONEachRow',
    });
    for (const { name } of await res.json<{ name: string }>()) {
      const r = await ch.client.query({ query: `SELECT count() AS n FROM \`${name}\``, format: 'JSONEachRow' });
      out[`ch.${name}`] = Number((await r.json<{ n: number | string }>())[0]!.n);
    }
    return out;
  };

  // The policies are made when the test runs: the event definition exists only from before() on.
  const cases: [string, () => Json, Json, Json][] = [
    [
      'pending: three breaching buckets in a row',
      () => rule({ pending_buckets: 3 }),
      [series('5 20 20 20 5')],
      {
        pass: [
          { at: at(3), alerts: [] },
          { at: at(4), alerts: [{ value: 20 }] },
        ],
        fail: [{ at: at(3), alerts: [{}] }],
      },
    ],
    [
      'hysteresis: resolves only under the recovery threshold',
      () => rule({ recovery_threshold: 5 }),
      [series('20 8 8 3')],
      {
        pass: [
          { at: at(3), alerts: [{ status: 'triggered', value: 20 }] },
          { at: at(4), alerts: [] },
        ],
        fail: [{ at: at(2), alerts: [] }],
      },
    ],
    [
      'no data: an empty bucket breaches',
      () => rule({ no_data: 'breach' }),
      [series('1 _ _')],
      {
        pass: [
          { at: at(1), alerts: [] },
          { at: at(2), alerts: [{}] },
        ],
        fail: [{ at: at(3), alerts: [] }],
      },
    ],
    [
      'compare_to: a rise of more than 50 % from the bucket before',
      () => rule({ compare_to: 'previous_bucket', threshold: 50 }),
      [series('10 12 30')],
      {
        pass: [
          { at: at(2), alerts: [] },
          { at: at(3), alerts: [{ value: 150 }] },
        ],
        fail: [{ at: at(3), alerts: [] }],
      },
    ],
    [
      'fleet: grouped by agent, each group judged on its own',
      () => ({ event: 'jobs', group_by: ['agent'], title: 'Jobs', period: 'minute', aggregate: 'max', condition: 'gt', threshold: 10, severity: 'error' }),
      [series('5 5 5', 'a'), series('50 50 50', 'b'), series('99 99 99', 'c', { queue: 'x' })],
      {
        pass: [{ at: at(3), alerts: [{ labels: { agent: 'b' }, value: 50 }, { labels: { agent: 'c' } }] }],
        fail: [{ at: at(3), alerts: [{ labels: { agent: 'a' } }, { labels: { agent: 'b' } }] }],
      },
    ],
  ];

  for (const [name, policy, given, { pass, fail }] of cases) {
    it(`${name}: a passing case passes, a failing one fails with what was got`, async () => {
      const before = await counts();
      const passed = await run({ policy: policy(), series: given, expect: pass });
      expect(passed.passed, JSON.stringify(passed)).to.equal(true);
      const failed = await run({ policy: policy(), series: given, expect: fail });
      expect(failed.passed).to.equal(false);
      expect(failed.results[0].passed).to.equal(false);
      expect(failed.results[0].got).to.be.an('array');
      expect(await counts()).to.deep.equal(before);
    });
  }

  it('refuses a malformed case with 400 naming it, and a policy a create would refuse', async () => {
    const bad = await svc.request('POST', '/v1.0/policies/test', {
      token,
      body: { policy: rule({}), series: [series('1 x 2')], expect: [{ at: at(1), alerts: [] }] },
    });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.details[0].path).to.equal('/series/0/values');
    const bomb = await svc.request('POST', '/v1.0/policies/test', {
      token,
      body: { policy: rule({}), series: [series('1x999999999')], expect: [{ at: at(1), alerts: [] }] },
    });
    expect(bomb.status).to.equal(400);
    const rule400 = await svc.request('POST', '/v1.0/policies/test', {
      token,
      body: { policy: rule({ recovery_threshold: 20 }), series: [series('1')], expect: [{ at: at(1), alerts: [] }] },
    });
    expect(rule400.status).to.equal(400);
  });

  it('takes the event definition by agent and event, as a document names it: the same answer as by event_id; 400 for none or both', async () => {
    const [, makePolicy, given, { pass }] = cases[0]!;
    const { event_id: _e, ...portable } = makePolicy() as Record<string, unknown>;
    const byName = await run({ policy: { ...portable, event_definition: { agent: 'web', event: 'latency' } }, series: given, expect: pass });
    expect(byName).to.deep.equal(await run({ policy: makePolicy(), series: given, expect: pass }));
    expect(byName.passed).to.equal(true);
    for (const [policy, message] of [
      [{ ...portable, event_definition: { agent: 'web', event: 'nope' } }, 'names no event definition (agent "web", event "nope") of the workspace'],
      [{ ...portable, event_id: eventId, event_definition: { agent: 'web', event: 'latency' } }, 'give one of them'],
    ] as const) {
      const res = await svc.request('POST', '/v1.0/policies/test', { token, body: { policy, series: given, expect: pass } });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error.details[0].path).to.equal('/policy/event_definition');
      expect(res.body.error.details[0].message).to.include(message);
    }
    const neither = await svc.request('POST', '/v1.0/policies/test', { token, body: { policy: portable, series: given, expect: pass } });
    expect(neither.status, neither.text).to.equal(400);
  });

  it('npx alertmon test: exit 1 on a file with a failing case, its got and expected printed', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'alertmon-unit-'));
    const [, makePolicy, given, { pass, fail }] = cases[0]!;
    // A file names the definition as a document does: it works in any workspace that has it.
    const { event_id: _e, ...portable } = makePolicy() as Record<string, unknown>;
    const policy = { ...portable, event_definition: { agent: 'web', event: 'latency' } };
    await writeFile(
      path.join(dir, 'cases.yaml'),
      stringify({
        tests: [
          { name: 'pages after three', policy, series: given, expect: pass },
          { name: 'pages too early', policy, series: given, expect: fail },
        ],
      }),
    );
    const tsx = pathToFileURL(createRequire(path.join(projectRoot, 'package.json')).resolve('tsx')).href;
    const result = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', tsx, path.join(projectRoot, 'scripts/cli/alertmon.ts'), 'test', 'cases.yaml'], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', ALERTMON_URL: svc.url, ALERTMON_TOKEN: token },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(result.code, result.out).to.equal(1);
    expect(result.out).to.include('PASS cases.yaml: pages after three');
    expect(result.out).to.include('FAIL cases.yaml: pages too early');
    expect(result.out).to.include('expected: [{}]');
    expect(result.out).to.include('got:      []');
    expect(result.out).to.include('1 passed, 1 failed');
  });
});
