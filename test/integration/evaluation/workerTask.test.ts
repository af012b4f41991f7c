import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';
import { alertsOf, createEvent, createPolicy } from './helpers.js';

describe('evaluation worker task (ROLE=all)', function () {
  this.timeout(60_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService({ env: { ROLE: 'all', EVAL_INTERVAL_MS: '200', EVAL_GRACE_MS: '0' } });
  });
  after(() => svc.close());

  it('evaluates enabled policies on its own schedule and reports it in /metrics', async () => {
    const token = await svc.tokenFor('worker-task-ws');
    const eventId = await createEvent(svc, token, 'heartbeat');
    // No logs at all: the last closed minute has a count of 0, which breaches at once.
    const policyId = await createPolicy(svc, token, { event_id: eventId, aggregate: 'count', condition: 'lt', threshold: 1 });
    let alerts = await alertsOf(svc, token, policyId);
    for (let i = 0; i < 100 && alerts.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 200));
      alerts = await alertsOf(svc, token, policyId);
    }
    expect(alerts).to.have.length(1);
    expect(alerts[0]).to.include({ status: 'triggered', value: 0, count: 0 });

    let metrics = '';
    const sample = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1]);
    // The open-alerts gauge is read at the end of a cycle, possibly the one before the alert.
    for (let i = 0; i < 50 && sample('alertmon_open_alerts') !== 1; i++) {
      metrics = (await svc.request('GET', '/metrics')).text;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(sample('alertmon_open_alerts')).to.equal(1);
    expect(sample('alertmon_evaluations_total')).to.be.at.least(1);
    expect(sample('alertmon_evaluation_cycle_policies')).to.equal(1);
    expect(sample('alertmon_evaluation_cycle_seconds_count')).to.be.at.least(1);
  });
});
