import { expect } from 'chai';
import type { Verdict } from '../../../src/alerts/transitions.js';
import { alertChangesFor, type AlertSubject, type JudgedBucket } from '../../../src/alerts/evaluationChanges.js';

const target: AlertSubject = {
  policy_id: '0196f7a0-3c1e-7000-8000-000000000001',
  workspace_id: 'w',
  event_id: '0196f7a0-3c1e-7000-8000-000000000002',
  title: 'Too many',
  channel: 'ops',
  period: 'minute',
  aggregate: 'count',
  condition: 'gt',
  threshold: 1,
  severity: 'error',
  agent: 'a',
  event: 'e',
};
const now = new Date('2026-11-21T10:05:00.000Z');
const bucket = (minute: number, count: number, verdict: Verdict): JudgedBucket => ({
  start: Date.UTC(2026, 10, 21, 10, minute),
  end: Date.UTC(2026, 10, 21, 10, minute + 1),
  count,
  min: count ? 1 : null,
  max: count ? 1 : null,
  value: count,
  verdict,
  early: false,
});

describe('alert changes of a run of buckets', () => {
  it('raises, updates and resolves within one run, notifying the alert as it was at each step', () => {
    const changes = alertChangesFor(target, null, [bucket(0, 2, 'breach'), bucket(1, 3, 'breach'), bucket(2, 0, 'clear'), bucket(3, 5, 'breach')], now);
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
  });

  it('updates an open alert without notifying, and resolves an acknowledged one', () => {
    const open = alertChangesFor(target, null, [bucket(0, 2, 'breach')], now).inserts[0]!;
    const acknowledged = { ...open, status: 'acknowledged' as const, acknowledged_at: now };
    const updated = alertChangesFor(target, acknowledged, [bucket(1, 4, 'breach')], now);
    expect(updated.notifications).to.deep.equal([]);
    expect(updated.updates.map((a) => [a.alert_id, a.status, a.value])).to.deep.equal([[open.alert_id, 'acknowledged', 4]]);
    const resolved = alertChangesFor(target, acknowledged, [bucket(1, 0, 'clear')], now);
    expect(resolved.updates.map((a) => a.status)).to.deep.equal(['resolved']);
    expect(resolved.notifications.map((n) => n.type)).to.deep.equal(['alert.resolved']);
  });

  it('writes nothing when a breach brings the open alert nothing new, and still names the alert', () => {
    const open = alertChangesFor(target, null, [bucket(0, 2, 'breach')], now).inserts[0]!;
    const again = alertChangesFor(target, open, [bucket(0, 2, 'breach')], new Date(now.getTime() + 15_000));
    expect(again.updates).to.deep.equal([]);
    expect(again.latest).to.equal(open);
  });

  it('does nothing on no verdict, or on a clear bucket without an open alert', () => {
    const changes = alertChangesFor(target, null, [bucket(0, 0, 'none'), bucket(1, 0, 'clear')], now);
    expect(changes).to.deep.equal({ inserts: [], updates: [], notifications: [], latest: null });
  });
});
