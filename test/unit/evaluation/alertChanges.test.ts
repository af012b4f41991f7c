import { expect } from 'chai';
import { alertChangesFor, FRESH_RUN, runOver, type AlertSubject, type JudgedBucket, type RunState } from '../../../src/evaluation/alertChanges.js';
import type { Alert } from '../../../src/alerts/model.js';
import type { Verdict } from '../../../src/alerts/transitions.js';

const subject = (over: Partial<AlertSubject> = {}): AlertSubject => ({
  policy_id: '0196f7a0-3c1e-7000-8000-000000000001',
  workspace_id: 'w',
  event_id: '0196f7a0-3c1e-7000-8000-000000000002',
  labels: { agent: 'default' },
  title: 'Too many',
  channel: 'ops',
  period: 'minute',
  aggregate: 'count',
  condition: 'gt',
  threshold: 1,
  severity: 'error',
  agent: 'a',
  event: 'e',
  recovery_threshold: null,
  compare_to: null,
  no_data: 'no_verdict',
  min_count: 0,
  pending_buckets: 1,
  ...over,
});
const target = subject();
const now = new Date('2026-11-21T10:05:00.000Z');
const minute = (m: number) => Date.UTC(2026, 10, 21, 10, m);
const bucket = (m: number, count: number, verdict: Verdict, over: Partial<JudgedBucket> = {}): JudgedBucket => ({
  start: minute(m),
  end: minute(m + 1),
  count,
  min: count ? 1 : null,
  max: count ? 1 : null,
  value: count,
  aggregateValue: count,
  comparisonValue: null,
  comparisonStart: null,
  verdict,
  openVerdict: verdict,
  early: false,
  ...over,
});
const apply = (buckets: JudgedBucket[], open: Alert | null = null, state: RunState = FRESH_RUN, s = target) => alertChangesFor(s, state, open, buckets, now);

describe('alert changes of a run of buckets', () => {
  it('raises, updates and resolves within one run, notifying the alert as it was at each step', () => {
    const changes = apply([bucket(0, 2, 'breach'), bucket(1, 3, 'breach'), bucket(2, 0, 'clear'), bucket(3, 5, 'breach')]);
    expect(changes.updates).to.deep.equal([]);
    expect(changes.inserts.map((a) => [a.status, a.value])).to.deep.equal([
      ['resolved', 3],
      ['triggered', 5],
    ]);
    expect(changes.notifications.map((n) => [n.type, n.alert.status, n.alert.value])).to.deep.equal([
      ['alert.triggered', 'triggered', 2],
      ['alert.resolved', 'resolved', 3],
      ['alert.triggered', 'triggered', 5],
    ]);
    expect(changes.latest!.value).to.equal(5);
    expect(changes.inserts[0]!.resolved_at).to.deep.equal(now);
    expect(changes.inserts[0]).to.include({ breaching_buckets: 2, peak_value: 3 });
  });

  it('updates an open alert without notifying, and resolves an acknowledged one', () => {
    const open = apply([bucket(0, 2, 'breach')]).inserts[0]!;
    const acknowledged = { ...open, status: 'acknowledged' as const, acknowledged_at: now };
    const updated = apply([bucket(1, 4, 'breach')], acknowledged);
    expect(updated.notifications).to.deep.equal([]);
    expect(updated.updates.map((a) => [a.alert_id, a.status, a.value])).to.deep.equal([[open.alert_id, 'acknowledged', 4]]);
    const resolved = apply([bucket(1, 0, 'clear')], acknowledged);
    expect(resolved.updates.map((a) => a.status)).to.deep.equal(['resolved']);
    expect(resolved.notifications.map((n) => n.type)).to.deep.equal(['alert.resolved']);
  });

  it('writes nothing when a breach brings the open alert nothing new, and still names the alert', () => {
    const open = apply([bucket(0, 2, 'breach')]).inserts[0]!;
    const again = alertChangesFor(target, FRESH_RUN, open, [bucket(0, 2, 'breach')], new Date(now.getTime() + 15_000));
    expect(again.updates).to.deep.equal([]);
    expect(again.latest).to.equal(open);
  });

  it('does nothing on no verdict, or on a clear bucket without an open alert', () => {
    const changes = apply([bucket(0, 0, 'none'), bucket(1, 0, 'clear')]);
    expect(changes).to.deep.include({ inserts: [], updates: [], notifications: [], latest: null });
  });

  describe('pending runs', () => {
    const pending3 = subject({ pending_buckets: 3 });

    it('raises once, at the last bucket of a whole run, with when the run began', () => {
      const changes = apply([bucket(0, 2, 'breach'), bucket(1, 5, 'breach'), bucket(2, 3, 'breach'), bucket(3, 4, 'breach')], null, FRESH_RUN, pending3);
      expect(changes.notifications.map((n) => [n.type, n.alert.bucket_start.getTime()])).to.deep.equal([['alert.triggered', minute(2)]]);
      expect(changes.latest).to.include({ breaching_buckets: 4, peak_value: 5, value: 4 });
      expect(changes.latest!.breaching_since.getTime()).to.equal(minute(0));
    });

    it('raises nothing for breaches shorter than the run; a bucket without a verdict breaks the run too', () => {
      const changes = apply(
        [bucket(0, 2, 'breach'), bucket(1, 2, 'breach'), bucket(2, 0, 'clear'), bucket(3, 2, 'breach'), bucket(4, 2, 'breach'), bucket(5, 0, 'none')],
        null,
        FRESH_RUN,
        pending3,
      );
      expect(changes.notifications).to.deep.equal([]);
      expect(changes.state).to.include({ run: 0, runStart: null });
    });

    it('continues a run kept from an earlier cycle', () => {
      const first = apply([bucket(0, 2, 'breach'), bucket(1, 2, 'breach')], null, FRESH_RUN, pending3);
      expect(first.state).to.include({ run: 2, runStart: minute(0) });
      const second = apply([bucket(2, 2, 'breach')], null, first.state, pending3);
      expect(second.notifications.map((n) => n.type)).to.deep.equal(['alert.triggered']);
      expect(runOver(pending3, [bucket(0, 2, 'breach'), bucket(1, 2, 'breach')])).to.deep.equal({ run: 2, runStart: minute(0), runPeak: 2, silentSince: null });
    });

    it('fires early on an open bucket that completes the run, without counting it twice once closed', () => {
      const closed = apply([bucket(0, 2, 'breach'), bucket(1, 2, 'breach')], null, FRESH_RUN, pending3);
      const early = apply([bucket(2, 2, 'breach', { early: true })], null, closed.state, pending3);
      expect(early.notifications.map((n) => n.type)).to.deep.equal(['alert.triggered']);
      // The open bucket is judged again once closed: the run kept stops before it.
      expect(early.state).to.include({ run: 2, alertedUntil: minute(3) });
      const closing = apply([bucket(2, 7, 'breach')], early.inserts[0]!, early.state, pending3);
      expect(closing.notifications).to.deep.equal([]);
      expect(closing.latest).to.include({ breaching_buckets: 3, value: 7 });
    });
  });

  it('hysteresis: between the thresholds the alert stays open and is updated; past the recovery threshold it resolves', () => {
    const s = subject({ threshold: 90, recovery_threshold: 80 });
    const between = (m: number) => bucket(m, 85, 'clear', { openVerdict: 'breach' });
    const changes = apply([bucket(0, 95, 'breach'), between(1), between(2), bucket(3, 80, 'clear')], null, FRESH_RUN, s);
    expect(changes.notifications.map((n) => [n.type, n.alert.value])).to.deep.equal([
      ['alert.triggered', 95],
      ['alert.resolved', 85],
    ]);
    expect(changes.inserts[0]).to.include({ breaching_buckets: 3, peak_value: 95 });
    // Without an open alert, a value between the thresholds raises nothing.
    expect(apply([between(4)], null, FRESH_RUN, s).notifications).to.deep.equal([]);
  });

  it('does not raise again for a bucket an alert resolved by hand already covered; a later breach raises', () => {
    const raised = apply([bucket(0, 2, 'breach', { early: true })]);
    const resolvedByHand = null; // a person resolved it: no open alert
    const sameBucket = apply([bucket(0, 3, 'breach')], resolvedByHand, raised.state);
    expect(sameBucket.notifications).to.deep.equal([]);
    const later = apply([bucket(1, 3, 'breach')], resolvedByHand, sameBucket.state);
    expect(later.notifications.map((n) => n.type)).to.deep.equal(['alert.triggered']);
  });

  it('keeps an alert raised early by the current bucket when the bucket before it is judged late, breaching or not', () => {
    // Minute 1 breached in its first seconds, while minute 0 was still in its grace time.
    const raised = apply([bucket(1, 5, 'breach', { early: true, ahead: true })]);
    const open = raised.inserts[0]!;
    for (const late of [bucket(0, 0, 'clear'), bucket(0, 2, 'breach')]) {
      const changes = apply([late], open, raised.state);
      expect(changes.notifications).to.deep.equal([]);
      expect(changes.updates).to.deep.equal([]);
    }
    // Its own bucket, once closed, and later ones still update and resolve it.
    const closed = apply([bucket(1, 5, 'breach'), bucket(2, 0, 'clear')], open, raised.state);
    expect(closed.notifications.map((n) => n.type)).to.deep.equal(['alert.resolved']);
  });

  it('leaves an open alert alone on a breach judged ahead of the bucket before, which may yet resolve it', () => {
    const open = apply([bucket(0, 5, 'breach', { early: true })]).inserts[0]!;
    const ahead = apply([bucket(1, 9, 'breach', { early: true, ahead: true })], open);
    expect(ahead.updates).to.deep.equal([]);
    expect(ahead.notifications).to.deep.equal([]);
  });

  it('tells how long the event has been silent: the start of its run of empty buckets', () => {
    const s = subject({ aggregate: 'average', condition: 'gt', threshold: 1 });
    const silent = (m: number) => bucket(m, 0, 'breach', { value: null, aggregateValue: null });
    const changes = apply([bucket(0, 3, 'clear'), silent(1), silent(2)], null, FRESH_RUN, s);
    expect(changes.latest).to.include({ value: null, count: 0, breaching_buckets: 2 });
    expect(changes.latest!.silent_since!.getTime()).to.equal(minute(1));
    const back = apply([bucket(3, 3, 'breach', { value: 3 })], changes.latest, changes.state, s);
    expect(back.latest!.silent_since).to.equal(null);
  });
});
