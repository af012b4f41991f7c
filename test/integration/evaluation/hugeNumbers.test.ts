// Numbers beyond ±2^53 that are whole (1e20: any threshold a person may type, any value a
// record may carry) reach ClickHouse as query parameters: a policy's threshold in the worker's
// shared queries, a unit test's values. The embedded engine once refused to bind them, and
// one such policy made every cycle fail, for every workspace. Now they are judged as any other.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';
import { describeInOneRun } from '../../helpers/stores.js';
import { alertsOf, baseMinute, createEvent, createPolicy, evaluatorAt, GRACE_MS, IDLE_WORKER_ENV, ingestAt, MINUTE } from './helpers.js';

describeInOneRun('evaluation with whole numbers beyond 2^53', function () {
  this.timeout(180_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService({ env: IDLE_WORKER_ENV });
  });
  after(() => svc.close());

  it('judges thresholds of ±1e20 in the cycle, which goes on for every other policy', async () => {
    const [big, other] = ['huge-numbers-ws', 'huge-numbers-other-ws'];
    const [bigToken, otherToken] = [await svc.tokenFor(big), await svc.tokenFor(other)];
    const t0 = baseMinute();
    const bigEvent = await createEvent(svc, bigToken, 'huge');
    const otherEvent = await createEvent(svc, otherToken, 'plain');
    const over = await createPolicy(svc, bigToken, { event_id: bigEvent, aggregate: 'max', condition: 'gt', threshold: 1e20, recovery_threshold: 1e19 });
    const overNegative = await createPolicy(svc, bigToken, { event_id: bigEvent, aggregate: 'max', condition: 'gt', threshold: -1e20 });
    const fleet = await createPolicy(svc, bigToken, { event: 'huge', group_by: ['agent'], aggregate: 'sum', condition: 'lt', threshold: 1e20 });
    const plain = await createPolicy(svc, otherToken, { event_id: otherEvent, aggregate: 'max', condition: 'gt', threshold: 10 });
    await ingestAt(svc.stores, big, 'huge', [[5e20, t0 + 1000]]);
    await ingestAt(svc.stores, other, 'plain', [[15, t0 + 1000]]);
    const clock = { now: t0 + MINUTE / 2 };
    const evaluator = evaluatorAt(svc.stores, clock);
    await evaluator.evaluateDuePolicies();
    clock.now = t0 + MINUTE + GRACE_MS + 1;
    await evaluator.evaluateDuePolicies();
    // 5e20 is over 1e20 and over -1e20; a sum of 5e20 is not under 1e20.
    expect((await alertsOf(svc, bigToken, over)).map((a) => a.value)).to.deep.equal([5e20]);
    expect((await alertsOf(svc, bigToken, overNegative)).map((a) => a.value)).to.deep.equal([5e20]);
    expect(await alertsOf(svc, bigToken, fleet)).to.deep.equal([]);
    expect((await alertsOf(svc, otherToken, plain)).map((a) => a.value)).to.deep.equal([15]);
  });

  it('runs a policy unit test whose values and threshold are beyond 2^53', async () => {
    const token = await svc.tokenFor('huge-numbers-test-ws');
    const eventId = await createEvent(svc, token, 'huge-test');
    const res = await svc.request('POST', '/v1.0/policies/test', {
      token,
      body: {
        policy: { event_id: eventId, title: 'Huge', period: 'minute', aggregate: 'max', condition: 'gt', threshold: 1e20, severity: 'warning' },
        series: [{ agent: 'test', meta: {}, start: '2026-11-02T10:00:00Z', interval: '1m', values: '1e19 2e20 3e20' }],
        expect: [
          { at: '2026-11-02T10:01:00Z', alerts: [] },
          { at: '2026-11-02T10:03:00Z', alerts: [{ status: 'triggered', value: 3e20 }] },
        ],
      },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.passed, res.text).to.equal(true);
  });
});
