import { expect } from 'chai';
import type { Notification, NotifiedAlert } from '../../../src/notifications/model.js';
import { clippedMessage } from '../../../src/channels/clip.js';
import { withLinks } from '../../../src/channels/links.js';
import { emailSubject, messageLines } from '../../../src/channels/message.js';
import { PublicLinks } from '../../../src/publicLinks.js';

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
  value: 812,
  status: 'triggered',
  triggered_at: '2026-11-21T11:00:05.000Z',
  ack_token: 'tok_en-123',
};
const links = new PublicLinks('https://alerts.example.com');
const shown = (type: Notification['type'], a: NotifiedAlert = alert) => withLinks({ id: 'n', type, alert: a }, links);

describe('acknowledge links in messages', () => {
  it('turn the token into ack_url, and never show the token itself', () => {
    const n = shown('alert.triggered');
    expect(n.alert.ack_url).to.equal('https://alerts.example.com/ack/0196f7a0-3c1e-7000-8000-000000000001?token=tok_en-123');
    expect(n.alert).to.not.have.property('ack_token');
    expect(shown('alert.resolved', { ...alert, ack_token: undefined }).alert.ack_url).to.equal(null);
  });

  it('put the link right after the headline, where a cut to the provider limit keeps it', () => {
    const long = { ...alert, title: 'x'.repeat(150), event: 'y'.repeat(5000) };
    const lines = messageLines(shown('alert.reminder', long));
    expect(lines[1]).to.equal('Acknowledge: https://alerts.example.com/ack/0196f7a0-3c1e-7000-8000-000000000001?token=tok_en-123');
    const cut = clippedMessage(lines, 2000, { escape: (t) => t, open: '', close: '', atom: /$^/ });
    expect(cut).to.include('?token=tok_en-123');
    expect(cut.length).to.be.at.most(2000);
  });

  it('word an escalation step in the headline and the email subject', () => {
    const escalated = { ...alert, escalation: { step: 2, of: 3, round: 1 } };
    const lines = messageLines(shown('alert.escalated', escalated));
    expect(lines[0]).to.equal('[ESCALATED step 2 of 3, round 1] [CRITICAL] Checkout errors');
    expect(lines).to.include('Triggered at 2026-11-21T11:00:05.000Z, still triggered and not acknowledged');
    expect(emailSubject(shown('alert.escalated', escalated))).to.equal('[alertmon] Escalated step 2 of 3, round 1, CRITICAL: Checkout errors');
  });
});
