// Fleet policies on declared dimensions: a filter on a declared key counts only the records
// of series holding its value, a group_by on declared keys raises one alert per value, and a
// key that is not declared is refused (400, nothing stored).
import { expect } from 'chai';
import type { AlertJson } from '../../../src/alerts/model.js';
import { PolicyEvaluator } from '../../../src/evaluation/evaluator.js';
import { countingClickHouse } from '../../helpers/countingClickHouse.js';
import { sendLogs } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { alertsOf, createPolicy, GRACE_MS, IDLE_WORKER_ENV, MINUTE } from '../evaluation/helpers.js';

describe('fleet policies on declared dimensions', function () {
  this.timeout(120_000);
  let svc: TestService;
  let token: string;
  const minute = Math.floor(Date.now() / MINUTE) * MINUTE - 5 * MINUTE;
  const at = (i: number) => new Date(minute + 1_000 + i * 100).toISOString();
  const evaluate = (policyId: string) =>
    svc.request('POST', `/v1.0/policies/${policyId}/evaluate`, { token, body: { at: new Date(minute + MINUTE + GRACE_MS + 1).toISOString() } });
  const open = (alerts: readonly AlertJson[]) => alerts.filter((a) => a.status === 'triggered').map((a) => ({ labels: a.labels, value: a.value }));

  before(async () => {
    svc = await startTestService({ env: IDLE_WORKER_ENV });
    token = await svc.tokenFor('fleet-dims-ws');
    expect((await svc.request('PUT', '/v1.0/dimensions/http.requests', { token, body: { keys: ['code', 'route'] } })).status).to.equal(200);
    const records = [
      ...Array.from({ length: 3 }, () => ({ agent: 'api-1', code: '500' })),
      ...Array.from({ length: 6 }, () => ({ agent: 'api-1', code: 200 })),
      ...Array.from({ length: 1 }, () => ({ agent: 'api-2', code: 500 })),
      ...Array.from({ length: 4 }, () => ({ agent: 'api-2', code: '200' })),
    ];
    await sendLogs(
      svc,
      token,
      records.map((r, i) => ({ agent: r.agent, event: 'http.requests', value: 1, occurred_at: at(i), meta: { code: r.code, route: '/x' } })),
    );
  });
  after(() => svc.close());

  it('a filter on code "500" counts only the records of code 500, per agent', async () => {
    const policyId = await createPolicy(svc, token, {
      event: 'http.requests',
      filter: { code: '500' },
      group_by: ['agent'],
      aggregate: 'count',
      condition: 'gt',
      threshold: 2,
    });
    const res = await evaluate(policyId);
    expect(res.status, res.text).to.equal(200);
    const groups = (res.body.groups as { labels: Record<string, string>; count: number; breached: boolean }[]).map((g) => [g.labels, g.count, g.breached]);
    expect(groups).to.have.deep.members([
      [{ agent: 'api-1' }, 3, true],
      [{ agent: 'api-2' }, 1, false],
    ]);
    expect(open(await alertsOf(svc, token, policyId))).to.deep.equal([{ labels: { agent: 'api-1' }, value: 3 }]);
  });

  it('a filter on code "200" of the whole fleet alerts on its 10 records, not on the 14', async () => {
    const policyId = await createPolicy(svc, token, { event: 'http.requests', filter: { code: ['200'] }, aggregate: 'count', condition: 'eq', threshold: 10 });
    expect((await evaluate(policyId)).status).to.equal(200);
    expect(open(await alertsOf(svc, token, policyId))).to.deep.equal([{ labels: {}, value: 10 }]);
  });

  it('groups by a declared key: one alert per value', async () => {
    const policyId = await createPolicy(svc, token, { event: 'http.requests', group_by: ['code'], aggregate: 'count', condition: 'gt', threshold: 5 });
    const res = await evaluate(policyId);
    expect((res.body.groups as { labels: Record<string, string>; count: number }[]).map((g) => [g.labels, g.count])).to.have.deep.members([
      [{ code: '500' }, 4],
      [{ code: '200' }, 10],
    ]);
    expect(open(await alertsOf(svc, token, policyId))).to.deep.equal([{ labels: { code: '200' }, value: 10 }]);
  });

  it('groups by agent and a declared key together', async () => {
    const policyId = await createPolicy(svc, token, {
      event: 'http.requests',
      group_by: ['agent', 'code'],
      aggregate: 'count',
      condition: 'gte',
      threshold: 4,
    });
    await evaluate(policyId);
    expect(open(await alertsOf(svc, token, policyId))).to.have.deep.members([
      { labels: { agent: 'api-1', code: '200' }, value: 6 },
      { labels: { agent: 'api-2', code: '200' }, value: 4 },
    ]);
  });

  it('refuses a key that is not declared for the event name (400 naming it, nothing stored)', async () => {
    const before = (await svc.request('GET', '/v1.0/policies', { token })).body.length;
    const body = { title: 'p', severity: 'warning', period: 'minute', event: 'http.requests', aggregate: 'count', condition: 'gt', threshold: 1 };
    for (const [extra, path] of [
      [{ filter: { region: 'eu' } }, '/filter/region'],
      [{ group_by: ['code', 'region'] }, '/group_by/1'],
    ] as const) {
      const res = await svc.request('POST', '/v1.0/policies', { token, body: { ...body, ...extra } });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal([path]);
    }
    // A name no agent sends is not found; another workspace's records and declarations are not this one's.
    expect((await svc.request('POST', '/v1.0/policies', { token, body: { ...body, event: 'other.name', filter: { code: '500' } } })).status).to.equal(404);
    const other = await svc.tokenFor('fleet-dims-other');
    expect((await svc.request('POST', '/v1.0/policies', { token: other, body: { ...body, filter: { code: '500' } } })).status).to.be.oneOf([400, 404]);
    expect((await svc.request('GET', '/v1.0/policies', { token })).body.length).to.equal(before);
  });

  it('reads the groups of declared keys in one ClickHouse query per bucket range, for 2 agents as for 40', async () => {
    const reads: number[] = [];
    for (const size of [2, 40]) {
      const event = `sized.${size}`;
      expect((await svc.request('PUT', `/v1.0/dimensions/${event}`, { token, body: { keys: ['code'] } })).status).to.equal(200);
      const agents = Array.from({ length: size }, (_, i) => `host-${i}`);
      await sendLogs(
        svc,
        token,
        agents.flatMap((agent, i) => ['500', '200'].map((code, j) => ({ agent, event, value: 1, occurred_at: at(2 * i + j), meta: { code } }))),
      );
      const policyId = await createPolicy(svc, token, {
        event,
        group_by: ['agent', 'code'],
        filter: { code: '500' },
        aggregate: 'count',
        condition: 'gte',
        threshold: 1,
      });
      const counting = countingClickHouse(svc.stores.clickhouse);
      const evaluator = new PolicyEvaluator({
        postgres: svc.stores.postgres,
        clickhouse: counting.store,
        graceMs: GRACE_MS,
        now: () => minute + MINUTE + GRACE_MS + 1,
      });
      await evaluator.evaluateDuePolicies();
      reads.push(counting.queries.filter((q) => q.includes('arrayZip(') && q.includes('series_rollups')).length);
      const raised = (await alertsOf(svc, token, policyId)).filter((a) => a.status === 'triggered');
      expect(raised.map((a) => a.labels.code)).to.deep.equal(agents.map(() => '500'));
      expect(raised).to.have.length(size);
    }
    expect(reads).to.deep.equal([1, 1]);
  });
});
