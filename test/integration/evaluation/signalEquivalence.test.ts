// Evaluation driven by records reaches exactly the verdicts of the periodic cycle alone: two
// events receive the same records, each watched by the same policies (pending run,
// hysteresis, no_data, comparison); one is evaluated by the cycle only, the other also
// whenever its records land, between cycles. Their alerts and notifications must match.
import { expect } from 'chai';
import type { AlertJson } from '../../../src/alerts/model.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import {
  alertsOf,
  baseMinute,
  createEvent,
  createPolicy,
  evaluatorAt,
  GRACE_MS,
  IDLE_WORKER_ENV,
  ingestAt,
  MINUTE,
  outboxOf,
  RULE_OPTION_POLICIES,
} from './helpers.js';

/** Per minute, the values logged in it (an empty list: a silent minute). */
const MINUTES: number[][] = [[10, 20], [95, 1, 1], [80, 75, 1, 1], [60], [], [], [99, 98, 97], [65, 1], [], [5, 5, 5, 5], [91, 1, 1, 1]];

const compared = (a: AlertJson) => {
  const {
    alert_id: _a,
    policy_id: _p,
    event_id: _e,
    event: _n,
    triggered_at: _t,
    resolved_at: _r,
    acknowledged_at: _k,
    archived_at: _x,
    alerted_at: _d,
    ...rest
  } = a;
  return rest;
};

describe('evaluation driven by records: the same verdicts as the cycle alone', function () {
  this.timeout(180_000);
  let svc: TestService;
  let token: string;
  const ws = 'signal-equivalence-ws';

  before(async () => {
    svc = await startTestService({ env: IDLE_WORKER_ENV });
    token = await svc.tokenFor(ws);
  });
  after(() => svc.close());

  it('raises, updates and resolves the same alerts with pending, recovery, no-data and comparison rules', async () => {
    const t0 = baseMinute() + 5 * 3_600_000;
    const points = MINUTES.flatMap((values, m) => values.map((v, i) => [v, t0 + m * MINUTE + 1_000 + i * 7_000] as const));
    const policies: { cycle: string; signal: string }[] = [];
    const events: Record<'cycle' | 'signal', string> = { cycle: '', signal: '' };
    for (const kind of ['cycle', 'signal'] as const) {
      events[kind] = await createEvent(svc, token, `equivalence.${kind}`);
      await ingestAt(svc.stores, ws, `equivalence.${kind}`, points);
    }
    for (const rule of RULE_OPTION_POLICIES) {
      policies.push({
        cycle: await createPolicy(svc, token, { event_id: events.cycle, ...rule }),
        signal: await createPolicy(svc, token, { event_id: events.signal, ...rule }),
      });
    }
    // Both sets are first seen by one cycle, before the first record: a new policy starts with the last bucket ended then.
    const clock = { now: t0 + 500 };
    const evaluator = evaluatorAt(svc.stores, clock);
    await evaluator.evaluateDuePolicies();
    for (let m = 0; m < MINUTES.length; m++) {
      const start = t0 + m * MINUTE;
      // Records land during the minute: the signalled event is evaluated as each does.
      for (const [v, at] of points) {
        if (at < start || at >= start + MINUTE || v === undefined) continue;
        clock.now = at + 200;
        await evaluator.evaluateEvents([events.signal]);
      }
      // And inside the previous minute's grace time, as a record early in a minute would.
      clock.now = start + GRACE_MS / 2;
      await evaluator.evaluateEvents([events.signal]);
      clock.now = start + MINUTE + GRACE_MS + 1;
      await evaluator.evaluateDuePolicies();
    }
    let alerts = 0;
    for (const { cycle, signal } of policies) {
      const byCycle = (await alertsOf(svc, token, cycle)).map(compared);
      const bySignal = (await alertsOf(svc, token, signal)).map(compared);
      expect(bySignal).to.deep.equal(byCycle);
      const types = async (id: string) => (await outboxOf(svc.stores, id)).map((o) => [o.type, o.alert.bucket_start, o.alert.value]);
      expect(await types(signal)).to.deep.equal(await types(cycle));
      alerts += byCycle.length;
    }
    // The fixture does exercise every rule: each raised an alert, and some resolved.
    for (const { cycle } of policies) expect(await alertsOf(svc, token, cycle)).to.not.be.empty;
    expect(alerts).to.be.at.least(RULE_OPTION_POLICIES.length);
  });
});
