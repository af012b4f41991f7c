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

  it('holds workspaces to a fair share of the measured capacity once saturated, but not a workspace alone', () => {
    const { clock, admission } = admissionAt({ INGEST_MAX_CONCURRENT_REQUESTS: '2' });
    /** A second in which `ws` sends 10 batches of 1,000 records, one beyond its concurrency share each time. */
    const saturatedSecond = (ws: string) => {
      for (let i = 0; i < 10; i++) {
        const tickets = [admission.enter(ws), admission.enter(ws), admission.enter(ws)];
        const admitted = tickets.filter((t): t is Admitted => t.admitted);
        admitted[0]?.debit(1_000);
        for (const t of admitted) t.leave();
        clock.now += 100;
      }
    };
    // Alone and saturated for 5 s: measured at 10,000 records/s, never refused for rate.
    for (let s = 0; s < 5; s++) saturatedSecond('flood');
    const alone = admission.enter('flood');
    expect(alone).to.deep.include({ admitted: true, headers: null });
    (alone as Admitted).leave();
    // A second workspace sends: each may now take 10,000 x 1.25 / 2 records/s.
    (admission.enter('other') as Admitted).leave();
    clock.now += 1_000;
    const shared = admission.enter('flood') as Admitted;
    expect(shared.headers?.limit).to.equal(6_250);
    shared.debit(3 * 6_250 + 1);
    shared.leave();
    expect(admission.enter('flood')).to.deep.include({ admitted: false, reason: 'rate' });
  });
});
