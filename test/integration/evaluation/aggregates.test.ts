import { expect } from 'chai';
import { AGGREGATES, CONDITIONS, type Aggregate, type Condition } from '../../../src/policies/model.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { alertsOf, baseMinute, createEvent, createPolicy, evaluatorAt, IDLE_WORKER_ENV, ingestAt, MINUTE } from './helpers.js';

const truth: Record<Condition, (value: number, threshold: number) => boolean> = {
  gt: (v, t) => v > t,
  gte: (v, t) => v >= t,
  eq: (v, t) => v === t,
  lte: (v, t) => v <= t,
  lt: (v, t) => v < t,
};

describe('evaluation: every aggregate × condition', function () {
  this.timeout(180_000);
  let svc: TestService;
  let token: string;
  const ws = 'eval-aggregates-ws';
  const base = baseMinute();
  const values = [1, 2, 3, 4, 10, 0.5, 7.25];
  let eventId: string;

  before(async () => {
    svc = await startTestService({ env: IDLE_WORKER_ENV });
    token = await svc.tokenFor(ws);
    eventId = await createEvent(svc, token, 'matrix');
    await ingestAt(
      svc.stores,
      ws,
      'matrix',
      values.map((v, i) => [v, base + 1000 * (i + 1)] as const),
    );
  });
  after(() => svc.close());

  async function evaluateAt(policyId: string, at: number) {
    const res = await svc.request('POST', `/v1.0/policies/${policyId}/evaluate`, { token, body: { at: new Date(at).toISOString() } });
    expect(res.status).to.equal(200);
    return res.body;
  }

  it('computes each aggregate of a closed bucket from the rollups', async () => {
    const sum = values.reduce((a, b) => a + b, 0);
    const exact: Partial<Record<Aggregate, number>> = { sum, count: values.length, average: sum / values.length, min: 0.5, max: 10 };
    for (const aggregate of AGGREGATES) {
      // Disabled: the worker cycle of the next test leaves it alone; evaluate works all the same.
      const policyId = await createPolicy(svc, token, { event_id: eventId, aggregate, condition: 'gt', threshold: 1e9, enabled: false });
      const r = await evaluateAt(policyId, base + MINUTE + 30_000);
      expect(r).to.include({ policy_id: policyId, bucket_start: new Date(base).toISOString(), bucket_end: new Date(base + MINUTE).toISOString() });
      expect(r).to.include({ count: values.length, min: 0.5, max: 10, breached: false, alert: null });
      if (exact[aggregate] !== undefined) expect(r.value, aggregate).to.be.closeTo(exact[aggregate]!, 1e-9);
      else expect(r.value, aggregate).to.be.within(7.25, 10);
    }
  });

  it('raises an alert exactly where the condition holds, for thresholds below, at and above the value', async () => {
    // Read each aggregate's value (p95/p99 are estimates) through a probe policy first.
    const valueOfAggregate = new Map<Aggregate, number>();
    for (const aggregate of AGGREGATES) {
      const probe = await createPolicy(svc, token, { event_id: eventId, aggregate, condition: 'gt', threshold: 1e9, enabled: false });
      valueOfAggregate.set(aggregate, (await evaluateAt(probe, base + MINUTE)).value);
    }
    const cases: { policyId: string; aggregate: Aggregate; condition: Condition; threshold: number }[] = [];
    for (const aggregate of AGGREGATES) {
      for (const condition of CONDITIONS) {
        for (const offset of [-1, 0, 1]) {
          const threshold = valueOfAggregate.get(aggregate)! + offset;
          cases.push({ policyId: await createPolicy(svc, token, { event_id: eventId, aggregate, condition, threshold }), aggregate, condition, threshold });
        }
      }
    }
    // One worker cycle, just after the bucket closed (plus grace), evaluates all of them.
    const report = await evaluatorAt(svc.stores, { now: base + MINUTE + 6_000 }).evaluateDuePolicies();
    expect(report.evaluations).to.equal(cases.length);
    for (const c of cases) {
      const alerts = await alertsOf(svc, token, c.policyId);
      const label = `${c.aggregate} ${c.condition} ${c.threshold}`;
      const value = valueOfAggregate.get(c.aggregate)!;
      expect(alerts.length, label).to.equal(truth[c.condition](value, c.threshold) ? 1 : 0);
      if (alerts[0]) {
        expect(alerts[0], label).to.include({
          status: 'triggered',
          aggregate: c.aggregate,
          condition: c.condition,
          threshold: c.threshold,
          count: values.length,
          min: 0.5,
          max: 10,
        });
        expect(alerts[0].value, label).to.be.closeTo(value, 1e-9);
      }
    }
  });

  it('treats an empty bucket as count 0 and sum 0, and gives the other aggregates no verdict', async () => {
    const emptyAt = base + 10 * MINUTE + 1;
    for (const aggregate of AGGREGATES) {
      const policyId = await createPolicy(svc, token, { event_id: eventId, aggregate, condition: 'lte', threshold: 0 });
      const r = await evaluateAt(policyId, emptyAt);
      const zero = aggregate === 'count' || aggregate === 'sum';
      expect(r, aggregate).to.include({ value: zero ? 0 : null, count: 0, min: null, max: null, breached: zero });
      expect(r.alert === null, aggregate).to.equal(!zero);
    }
  });

  it('estimates p95 and p99 from the t-digest within 2% rank error on skewed data', async () => {
    const skewed: number[] = [];
    for (let i = 0; i < 2000; i++) skewed.push(Math.round(-Math.log(1 - (i + 0.5) / 2000) * 1000 * 1000) / 1000);
    const at = base + 20 * MINUTE;
    const skewedEvent = await createEvent(svc, token, 'skewed');
    await ingestAt(
      svc.stores,
      ws,
      'skewed',
      skewed.map((v, i) => [v, at + (i % 50) * 1000] as const),
    );
    const sorted = [...skewed].sort((a, b) => a - b);
    const rank = (v: number) => sorted.filter((x) => x <= v).length / sorted.length;
    for (const [aggregate, q] of [
      ['p95_est', 0.95],
      ['p99_est', 0.99],
    ] as const) {
      const policyId = await createPolicy(svc, token, { event_id: skewedEvent, aggregate, condition: 'gt', threshold: 1e9 });
      const r = await evaluateAt(policyId, at + MINUTE);
      expect(Math.abs(rank(r.value) - q), aggregate).to.be.below(0.02);
    }
  });
});
