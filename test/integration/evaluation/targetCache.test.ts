// The evaluation cycle keeps the enabled policies it read between cycles (targetCache.ts):
// what it evaluates must be what reading them afresh gives, after its own writes, evaluations
// driven by records, edits, an event's new timezone, an alert resolved by hand, a manual
// evaluation, a new policy and a disabled one. Verdicts are a function of these targets and
// the rollups, so equal targets mean the verdicts of reading every policy every cycle.
import { expect } from 'chai';
import type { AlertJson } from '../../../src/alerts/model.js';
import type { PolicyEvaluator } from '../../../src/evaluation/evaluator.js';
import { loadEnabledTargets, type EvaluationTarget } from '../../../src/evaluation/targets.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { alertsOf, baseMinute, createEvent, createPolicy, evaluatorAt, GRACE_MS, IDLE_WORKER_ENV, ingestAt, MINUTE, RULE_OPTION_POLICIES } from './helpers.js';

/** Per minute, the values logged in it (an empty list: a silent minute). */
const MINUTES: number[][] = [[10, 20], [95, 1, 1], [80, 75, 1, 1], [60], [], [99, 98, 97], [65, 1], [5, 5, 5, 5]];

describe('evaluation cycle: the policies kept between cycles are the ones read afresh', function () {
  this.timeout(180_000);
  let svc: TestService;
  let token: string;
  const ws = 'target-cache-ws';

  before(async () => {
    svc = await startTestService({ env: IDLE_WORKER_ENV });
    token = await svc.tokenFor(ws);
  });
  after(() => svc.close());

  const sorted = (targets: readonly EvaluationTarget[]) => targets.filter((t) => t.workspace_id === ws).sort((a, b) => (a.policy_id < b.policy_id ? -1 : 1));

  async function expectKeptAsRead(evaluator: PolicyEvaluator, step: string): Promise<EvaluationTarget[]> {
    const kept = sorted(await evaluator.targets.enabledTargets(svc.stores.postgres));
    const read = sorted(await loadEnabledTargets(svc.stores.postgres));
    expect(kept, step).to.deep.equal(read);
    return kept;
  }

  it('after its own writes, record-driven evaluations, edits, a new timezone, a hand-resolved alert, a new and a disabled policy', async () => {
    const t0 = baseMinute() + 7 * 3_600_000;
    const eventId = await createEvent(svc, token, 'kept.targets');
    const points = MINUTES.flatMap((values, m) => values.map((v, i) => [v, t0 + m * MINUTE + 1_000 + i * 7_000] as const));
    await ingestAt(svc.stores, ws, 'kept.targets', points);
    const policyIds: string[] = [];
    for (const rule of RULE_OPTION_POLICIES) policyIds.push(await createPolicy(svc, token, { event_id: eventId, ...rule }));

    const clock = { now: t0 + 500 };
    const evaluator = evaluatorAt(svc.stores, clock);
    await evaluator.evaluateDuePolicies();
    await expectKeptAsRead(evaluator, 'first cycle');

    let resolvedByHand = false;
    for (let m = 0; m < MINUTES.length; m++) {
      const start = t0 + m * MINUTE;
      clock.now = start + 30_000;
      await evaluator.evaluateEvents([eventId]);
      await expectKeptAsRead(evaluator, `minute ${m}: driven by records`);
      clock.now = start + MINUTE + GRACE_MS + 1;
      await evaluator.evaluateDuePolicies();
      await expectKeptAsRead(evaluator, `minute ${m}: cycle`);

      if (m === 1) {
        expect((await svc.request('PUT', `/v1.0/policies/${policyIds[1]}`, { token, body: { threshold: 85 } })).status).to.equal(200);
        const kept = await expectKeptAsRead(evaluator, 'threshold edited');
        expect(kept.find((t) => t.policy_id === policyIds[1])!.threshold).to.equal(85);
      }
      if (m === 2) {
        expect((await svc.request('PUT', `/v1.0/events/${eventId}`, { token, body: { timezone: 'Asia/Kolkata' } })).status).to.equal(200);
        const kept = await expectKeptAsRead(evaluator, 'event timezone changed');
        expect(kept.every((t) => t.timezone === 'Asia/Kolkata')).to.equal(true);
      }
      const [alert] = (await svc.request<AlertJson[]>('GET', '/v1.0/alerts?status=triggered&limit=1000', { token })).body;
      if (!resolvedByHand && alert) {
        expect((await svc.request('POST', `/v1.0/alerts/${alert.alert_id}/resolve`, { token })).status).to.equal(200);
        const kept = await expectKeptAsRead(evaluator, 'alert resolved by hand');
        expect(kept.find((t) => t.policy_id === alert.policy_id)!.snapshot.hasOpenAlert).to.equal(false);
        resolvedByHand = true;
      }
      if (m === 4) {
        const evaluated = await svc.request('POST', `/v1.0/policies/${policyIds[0]}/evaluate`, { token, body: {} });
        expect(evaluated.status).to.equal(200);
        await expectKeptAsRead(evaluator, 'manual evaluation');
        policyIds.push(await createPolicy(svc, token, { event_id: eventId, aggregate: 'max', condition: 'gt', threshold: 50 }));
        await expectKeptAsRead(evaluator, 'policy created');
        expect((await svc.request('PUT', `/v1.0/policies/${policyIds[3]}`, { token, body: { enabled: false } })).status).to.equal(200);
        const kept = await expectKeptAsRead(evaluator, 'policy disabled');
        expect(kept.map((t) => t.policy_id)).to.not.include(policyIds[3]);
      }
    }
    // The fixture did raise and resolve: the kept state was exercised, not only read.
    expect(resolvedByHand).to.equal(true);
    const alerts = (await Promise.all(policyIds.map((id) => alertsOf(svc, token, id)))).flat();
    expect(alerts.filter((a) => a.status === 'resolved').length).to.be.at.least(2);
  });
});
