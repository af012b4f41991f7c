// Alertmanager's webhook v4 body of a policy alert and of a group (src/channels/alertmanagerBody.ts).
import { expect } from 'chai';
import { alertmanagerBody } from '../../../src/channels/alertmanagerBody.js';

const context = { externalUrl: 'https://alertmon.example', receiver: 'alertmon', description: 'p95 over 500 ms' };

describe('alertmanagerBody', () => {
  it('shows a policy alert with its labels plus alertname, severity, event, policy_id and agent, and annotations', () => {
    const alert = {
      alert_id: 'a1',
      policy_id: 'p1',
      alert_source_id: null,
      title: 'Slow checkout',
      severity: 'error',
      event: 'http.ms',
      agent: 'web-1',
      labels: { agent: 'web-1' },
      fingerprint: 'ffff',
      status: 'triggered' as const,
      triggered_at: '2026-01-01T00:00:00.000Z',
      ack_url: 'https://alertmon.example/ack/a1?token=t',
    };
    const body = alertmanagerBody({ id: 'n1', type: 'alert.triggered', alert }, context);
    expect(body).to.include({ version: '4', status: 'firing', receiver: 'alertmon', externalURL: 'https://alertmon.example', truncatedAlerts: 0 });
    const [shown] = body.alerts as Record<string, unknown>[];
    expect(shown!.labels).to.deep.equal({ agent: 'web-1', alertname: 'Slow checkout', severity: 'error', event: 'http.ms', policy_id: 'p1' });
    expect(shown!.annotations).to.deep.equal({ summary: 'Slow checkout', description: 'p95 over 500 ms', ack_url: 'https://alertmon.example/ack/a1?token=t' });
    expect(shown).to.include({ status: 'firing', startsAt: '2026-01-01T00:00:00.000Z', endsAt: '0001-01-01T00:00:00Z', fingerprint: 'ffff' });
  });

  it('sends a group as one body with its alerts, and their common labels', () => {
    const a = (i: number) => ({
      alert_id: `a${i}`,
      alert_source_id: 's',
      labels: { alertname: 'X', instance: `i${i}` },
      annotations: { summary: 'x' },
      status: 'resolved' as const,
      resolved_at: '2026-01-01T00:01:00.000Z',
    });
    const body = alertmanagerBody({ id: 'g', type: 'alert.group', alert: a(1), group: { type: 'alert.resolved', alerts: [a(1), a(2)] } }, context);
    expect(body.status).to.equal('resolved');
    expect(body.alerts).to.have.length(2);
    expect(body.commonLabels).to.deep.equal({ alertname: 'X' });
    expect(body.commonAnnotations).to.deep.equal({ summary: 'x' });
  });
});
