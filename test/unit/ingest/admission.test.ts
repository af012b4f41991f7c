import { expect } from 'chai';
import { loadConfig } from '../../../src/config.js';
import { Admission, type Admitted } from '../../../src/ingest/admission.js';
import { createMetrics } from '../../../src/metrics.js';

function admissionAt(env: Record<string, string>) {
  const clock = { now: 1_000_000 };
  return { clock, admission: new Admission(loadConfig(env).ingest, createMetrics(), () => clock.now) };
}

describe('ingest admission', () => {
  it('admits a workspace while its bucket holds records, then refuses until it refills', () => {
    const { clock, admission } = admissionAt({ INGEST_WORKSPACE_RECORDS_PER_S: '100', INGEST_WORKSPACE_BURST_S: '2' });
    const first = admission.enter('ws') as Admitted;
    expect(first.admitted).to.equal(true);
    expect(first.headers).to.deep.equal({ limit: 100, remaining: 200, reset: 0 });
    first.debit(250); // more than the burst: admitted, the bucket goes below zero
    first.leave();
    const refused = admission.enter('ws');
    expect(refused).to.deep.include({ admitted: false, reason: 'rate', retryAfterS: 1 });
    expect(refused.headers).to.deep.equal({ limit: 100, remaining: 0, reset: 3 });
    clock.now += 600;
    expect(admission.enter('ws').admitted).to.equal(true);
    expect(admission.enter('other').admitted).to.equal(true);
  });

  it('holds each active workspace to its share of concurrent requests, and frees a slot when one leaves', () => {
    const { admission } = admissionAt({ INGEST_MAX_CONCURRENT_REQUESTS: '4' });
    const quiet = admission.enter('quiet') as Admitted;
    const crowd = [admission.enter('crowd'), admission.enter('crowd')] as Admitted[];
    expect(crowd.map((c) => c.admitted)).to.deep.equal([true, true]);
    expect(admission.enter('crowd')).to.deep.include({ admitted: false, reason: 'concurrency', retryAfterS: 1 });
    expect(quiet.admitted).to.equal(true);
    expect(admission.enter('quiet').admitted).to.equal(true);
    crowd[0]!.leave();
    expect(admission.enter('crowd').admitted).to.equal(true);
  });

  it('limits nobody by rate without a configured rate until the service is saturated', () => {
    const { admission } = admissionAt({});
    for (let i = 0; i < 100; i++) {
      const ticket = admission.enter('ws') as Admitted;
      expect(ticket.admitted).to.equal(true);
      expect(ticket.headers).to.equal(null);
      ticket.debit(10_000);
      ticket.leave();
    }
  });
});
