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

  it('refuses the workspace filling a journal backlog past half its cap (429 backlog) before it is full, and admits a quieter one', () => {
    const clock = { now: 1_000_000 };
    const metrics = createMetrics();
    const backlog = { bytes: 0, records: 0, oldestJournaledAt: null };
    metrics.registerJournal(() => backlog);
    const admission = new Admission(loadConfig({ INGEST_JOURNAL_MAX_BYTES: String(100 * 1024 ** 2) }).ingest, metrics, () => clock.now);
    const send = (ws: string, records: number) => {
      const a = admission.enter(ws);
      if (a.admitted) {
        a.debit(records);
        a.leave();
      }
      return a;
    };
    for (let i = 0; i < 10; i++) {
      expect(send('flood', 10_000).admitted).to.equal(true);
      expect(send('quiet', 10).admitted).to.equal(true);
      clock.now += 200;
    }
    // Below half the cap nobody is refused for the backlog.
    backlog.bytes = 50 * 1024 ** 2;
    expect(send('flood', 10_000).admitted).to.equal(true);
    backlog.bytes = 60 * 1024 ** 2;
    clock.now += 1_000;
    expect(admission.enter('flood')).to.deep.include({ admitted: false, reason: 'backlog', retryAfterS: 2 });
    expect(send('quiet', 10).admitted).to.equal(true);
    // A workspace new to the service has sent nothing: admitted.
    expect(send('newcomer', 10).admitted).to.equal(true);
    backlog.bytes = 10 * 1024 ** 2;
    expect(send('flood', 10_000).admitted).to.equal(true);
  });

  it('refuses for concurrency only at the limit, and then only a workspace holding its fair share or more', () => {
    const { admission } = admissionAt({ INGEST_MAX_CONCURRENT_REQUESTS: '4' });
    const quiet = admission.enter('quiet') as Admitted;
    const crowd = [admission.enter('crowd'), admission.enter('crowd'), admission.enter('crowd')] as Admitted[];
    // Below the limit nobody is refused, whatever its share: 4 in flight now.
    expect([quiet, ...crowd].map((c) => c.admitted)).to.deep.equal([true, true, true, true]);
    // At the limit, the crowd holds 3 of 4 (its share is 2 of 2 sharers): refused.
    expect(admission.enter('crowd')).to.deep.include({ admitted: false, reason: 'concurrency', retryAfterS: 1 });
    // The quiet workspace holds 1, below its share: admitted although the limit is reached.
    const again = admission.enter('quiet') as Admitted;
    expect(again.admitted).to.equal(true);
    // A third workspace, with nothing in flight, gets in too.
    expect(admission.enter('third').admitted).to.equal(true);
    // Once below the limit again, the crowd is admitted.
    again.leave();
    crowd[0]!.leave();
    quiet.leave();
    expect(admission.enter('crowd').admitted).to.equal(true);
  });

  it('refuses nobody on an idle service however many workspaces were active recently', () => {
    const { clock, admission } = admissionAt({});
    for (let i = 0; i < 1_000; i++) {
      const ticket = admission.enter(`tenant-${i}`) as Admitted;
      ticket.debit(1);
      ticket.leave();
    }
    clock.now += 1_000;
    const burst = Array.from({ length: 30 }, () => admission.enter('tenant-7'));
    expect(burst.filter((t) => !t.admitted)).to.deep.equal([]);
  });

  it('reports X-RateLimit-Remaining after the answered batch is charged', () => {
    const { admission } = admissionAt({ INGEST_WORKSPACE_RECORDS_PER_S: '100', INGEST_WORKSPACE_BURST_S: '2' });
    const ticket = admission.enter('ws') as Admitted;
    expect(ticket.headers?.remaining).to.equal(200);
    expect(ticket.debit(30)).to.deep.equal({ limit: 100, remaining: 170, reset: 1 });
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
    // A second workspace that sends nothing takes nothing from it (max-min fairness).
    (admission.enter('other') as Admitted).leave();
    clock.now += 1_000;
    const unshared = admission.enter('flood') as Admitted;
    expect(unshared.headers?.limit).to.equal(12_500);
    unshared.debit(10_000);
    unshared.leave();
    // A second workspace that sends as much: both are held to the same, smaller share.
    (admission.enter('other') as Admitted).debit(20_000);
    clock.now += 1_000;
    const shared = admission.enter('flood') as Admitted;
    const limit = shared.headers!.limit;
    expect(limit).to.be.below(12_500).and.above(5_000);
    expect((admission.enter('other') as Admitted).headers?.limit).to.equal(limit);
    shared.debit(3 * limit + 1);
    shared.leave();
    expect(admission.enter('flood')).to.deep.include({ admitted: false, reason: 'rate' });
  });
});
