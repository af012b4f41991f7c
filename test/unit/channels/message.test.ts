import { expect } from 'chai';
import type { Notification, NotifiedAlert } from '../../../src/notifications/model.js';
import { durationWords, emailSubject, messageLines } from '../../../src/channels/message.js';

const alert: NotifiedAlert = {
  alert_id: '0196f7a0-3c1e-7000-8000-000000000001',
  title: 'Checkout errors',
  agent: 'web',
  event: 'checkout.errors',
  period: 'hour',
  aggregate: 'count',
  condition: 'gt',
  threshold: 50,
  severity: 'critical',
  recovery_threshold: null,
  compare_to: null,
  value: 812,
  aggregate_value: 812,
  comparison_value: null,
  bucket_start: '2026-11-21T10:00:00.000Z',
  bucket_end: '2026-11-21T11:00:00.000Z',
  breaching_since: '2026-11-21T10:00:00.000Z',
  breaching_buckets: 1,
  peak_value: 812,
  silent_since: null,
  status: 'triggered',
  triggered_at: '2026-11-21T11:00:05.000Z',
};
const lines = (a: NotifiedAlert, type: Notification['type'] = 'alert.triggered') => messageLines({ id: 'n', type, alert: a });

describe('notification messages', () => {
  it('say the value against the rule for a plain threshold', () => {
    expect(lines(alert)).to.include('count per hour was 812, above the threshold 50');
  });

  it('carry both aggregates and the percentage for a comparison policy', () => {
    const compared = { ...alert, compare_to: 'previous_7d', value: 60, aggregate_value: 16, comparison_value: 10 };
    expect(lines(compared)).to.include('count per hour changed by +60% (16 against 10 the same hour 7 days earlier), above the threshold 50%');
    expect(lines({ ...compared, status: 'resolved', value: -25, aggregate_value: 3, comparison_value: 4 }, 'alert.resolved')).to.include(
      'count per hour is back to -25% (3 against 4 the same hour 7 days earlier); the alert fires when it is above 50%',
    );
  });

  it('tell how long a pending rule has breached, and its peak', () => {
    const pending = { ...alert, bucket_start: '2026-11-21T14:00:00.000Z', bucket_end: '2026-11-21T15:00:00.000Z', breaching_buckets: 5, peak_value: 990 };
    expect(lines(pending)).to.include.members(['Breaching for 5 hours, since 2026-11-21T10:00:00.000Z (5 hours)', 'Peak: 990']);
  });

  it('tell how long the event has been silent, and what resolves a hysteresis alert', () => {
    const silent = { ...alert, aggregate: 'average', value: null, silent_since: '2026-11-21T08:45:00.000Z', recovery_threshold: 40 };
    expect(lines(silent)).to.include.members([
      'average per hour had no data (an empty bucket), which breaches this policy',
      'No logs for 2 hours 15 minutes, since 2026-11-21T08:45:00.000Z',
      'Resolves once no longer above 40 (the recovery threshold)',
    ]);
  });

  it('mark reminders as such, in the text and the email subject', () => {
    expect(lines(alert, 'alert.reminder')[0]).to.equal('[REMINDER] [CRITICAL] Checkout errors');
    expect(lines(alert, 'alert.reminder')).to.include('Triggered at 2026-11-21T11:00:05.000Z, still triggered and not acknowledged');
    expect(emailSubject({ id: 'n', type: 'alert.reminder', alert })).to.equal('[alertmon] Reminder, CRITICAL: Checkout errors');
  });

  it("name the alert's labels, leaving out the agent the stream line already names", () => {
    expect(lines({ ...alert, labels: { agent: 'web' } }).filter((l) => l.startsWith('Labels'))).to.deep.equal([]);
    expect(lines({ ...alert, labels: { agent: 'web', code: '500', route: '/checkout' } })).to.include('Labels: code="500", route="/checkout"');
    expect(lines({ ...alert, agent: '', labels: { region: 'eu' } })).to.include('Labels: region="eu"');
  });

  it('read an alert written before these fields existed', () => {
    const { breaching_since: _b, breaching_buckets: _n, compare_to: _c, silent_since: _s, ...old } = alert;
    expect(lines(old)).to.include('count per hour was 812, above the threshold 50');
  });

  it('word durations with their two largest units', () => {
    expect(durationWords(45_000)).to.equal('45 seconds');
    expect(durationWords(60_000)).to.equal('1 minute');
    expect(durationWords(2 * 3_600_000)).to.equal('2 hours');
    expect(durationWords(26 * 3_600_000 + 5 * 60_000)).to.equal('1 day 2 hours');
  });
});

describe('messages of received alerts', () => {
  it('show the description annotation and where the alert comes from, not a rule line', () => {
    const alert: NotifiedAlert = {
      alert_id: 'a1',
      alert_source_id: 's1',
      policy_id: null,
      title: 'Disk almost full',
      agent: 'db-1:9100',
      event: 'DiskFull',
      labels: { alertname: 'DiskFull', instance: 'db-1:9100' },
      annotations: { summary: 'Disk almost full', description: '/var at 93%' },
      starts_at: '2026-01-01T00:00:00.000Z',
      generator_url: 'http://prometheus:9090/graph?g0.expr=disk',
      severity: 'warning',
      status: 'triggered',
      triggered_at: '2026-01-01T00:00:10.000Z',
    };
    const lines = messageLines({ id: 'n1', type: 'alert.triggered', alert });
    expect(lines).to.include('/var at 93%');
    expect(lines).to.include('Firing since 2026-01-01T00:00:00.000Z');
    expect(lines).to.include('Source: http://prometheus:9090/graph?g0.expr=disk');
    expect(lines.join('\n')).to.not.match(/threshold|had no data/);
  });
});
