import { expect } from 'chai';
import { FRESH_RUN } from '../../../src/evaluation/alertChanges.js';
import { MAX_CATCH_UP_BUCKETS, planEvaluation, plannerAt } from '../../../src/evaluation/planner.js';
import type { EvaluationTarget } from '../../../src/evaluation/targets.js';

const target = (over: Partial<EvaluationTarget>): EvaluationTarget => ({
  policy_id: 'p',
  workspace_id: 'w',
  event_id: 'e',
  labels: { agent: 'default' },
  title: 't',
  channel: 'default',
  period: 'minute',
  aggregate: 'count',
  condition: 'gt',
  threshold: 1,
  severity: 'info',
  pending_buckets: 1,
  recovery_threshold: null,
  no_data: 'no_verdict',
  compare_to: null,
  min_count: 0,
  updated_at: new Date(0),
  evaluated_until: null,
  agent: 'a',
  event: 'e',
  timezone: 'UTC',
  snapshot: { rowVersion: '1', eventVersion: '1', state: FRESH_RUN, hasOpenAlert: false },
  ...over,
});
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('evaluation planner', () => {
  it('starts a new policy with the last bucket that has ended, once its grace has passed', () => {
    const early = planEvaluation(target({}), at('2026-11-21T10:00:03Z'), 5000);
    expect(early.closed).to.deep.equal([]);
    expect(iso(early.evaluatedUntil)).to.equal('2026-11-21T09:59:00.000Z');
    expect(iso(early.open!.start)).to.equal('2026-11-21T09:59:00.000Z');

    const later = planEvaluation(target({}), at('2026-11-21T10:00:06Z'), 5000);
    expect(later.closed.map((b) => iso(b.start))).to.deep.equal(['2026-11-21T09:59:00.000Z']);
    expect(iso(later.evaluatedUntil)).to.equal('2026-11-21T10:00:00.000Z');
    expect(iso(later.open!.start)).to.equal('2026-11-21T10:00:00.000Z');
  });

  it('lets the current bucket fire while the one before is in its grace time, unless a pending run or a comparison needs that one', () => {
    const now = at('2026-11-21T10:00:03Z');
    expect(iso(planEvaluation(target({}), now, 5000).current!.start)).to.equal('2026-11-21T10:00:00.000Z');
    expect(planEvaluation(target({ pending_buckets: 2 }), now, 5000).current).to.equal(null);
    expect(planEvaluation(target({ compare_to: 'previous_bucket' }), now, 5000).current).to.equal(null);
    expect(iso(planEvaluation(target({ compare_to: 'previous_1d' }), now, 5000).current!.start)).to.equal('2026-11-21T10:00:00.000Z');
    // Past the grace time the bucket before is judged closed, and the current one is the open one.
    expect(planEvaluation(target({}), at('2026-11-21T10:00:06Z'), 5000).current).to.equal(null);
  });

  it('evaluates each closed bucket after the progress mark, in order, once', () => {
    const plan = planEvaluation(target({ evaluated_until: new Date('2026-11-21T10:00:00Z') }), at('2026-11-21T10:03:10Z'), 5000);
    expect(plan.closed.map((b) => iso(b.start))).to.deep.equal(['2026-11-21T10:00:00.000Z', '2026-11-21T10:01:00.000Z', '2026-11-21T10:02:00.000Z']);
    const next = planEvaluation(target({ evaluated_until: new Date(plan.evaluatedUntil) }), at('2026-11-21T10:03:30Z'), 5000);
    expect(next.closed).to.deep.equal([]);
  });

  it('catches up at most the limit of buckets and counts the skipped ones', () => {
    const plan = planEvaluation(target({ evaluated_until: new Date('2026-11-21T08:00:00Z') }), at('2026-11-21T10:00:10Z'), 5000);
    expect(plan.closed).to.have.length(MAX_CATCH_UP_BUCKETS.minute);
    expect(iso(plan.closed[0]!.start)).to.equal('2026-11-21T09:00:00.000Z');
    expect(plan.skipped).to.equal(60);
  });

  it('uses local days of the event timezone (Asia/Kolkata days start at 18:30 UTC)', () => {
    const plan = planEvaluation(target({ period: 'day', timezone: 'Asia/Kolkata' }), at('2026-11-21T19:00:00Z'), 5000);
    expect(plan.closed.map((b) => [iso(b.start), iso(b.end)])).to.deep.equal([['2026-11-20T18:30:00.000Z', '2026-11-21T18:30:00.000Z']]);
  });

  it('gives a 23-hour day across the spring DST change (Europe/Berlin)', () => {
    const plan = planEvaluation(
      target({ period: 'day', timezone: 'Europe/Berlin', evaluated_until: new Date('2026-03-28T23:00:00Z') }),
      at('2026-03-30T00:00:00Z'),
      5000,
    );
    expect(plan.closed.map((b) => [iso(b.start), iso(b.end)])).to.deep.equal([['2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z']]);
  });

  it('plans many policies at one moment exactly as one at a time, across periods, timezones and progress', () => {
    const now = at('2026-03-29T02:30:10Z'); // the day Europe/Berlin moves its clocks
    const targets: EvaluationTarget[] = [];
    for (const period of ['minute', 'hour', 'day'] as const)
      for (const timezone of ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata'])
        for (const until of [null, now - 3 * 60_000, now - 5 * 3_600_000, now - 40 * 86_400_000])
          for (const pending_buckets of [1, 2])
            targets.push(
              target({
                policy_id: `${period}-${timezone}-${until}-${pending_buckets}`,
                period,
                timezone,
                pending_buckets,
                evaluated_until: until === null ? null : new Date(until),
              }),
            );
    const plan = plannerAt(now, 5000);
    // Twice over: the second pass is served from what the first computed.
    for (const t of [...targets, ...targets]) expect(plan(t)).to.deep.equal(planEvaluation(t, now, 5000));
  });
});
