import { expect } from 'chai';
import { BUILT_IN } from '../../../src/channels/compose.js';
import { emailSubject, messageLines } from '../../../src/channels/message.js';
import { webhookBody } from '../../../src/channels/webhook.js';
import type { HandoffNotice, Notification } from '../../../src/notifications/model.js';

const handoff: HandoffNotice = {
  handoff_id: '0196f7a0-3c1e-7000-8000-00000000000a',
  schedule_id: '0196f7a0-3c1e-7000-8000-00000000000b',
  schedule_name: 'Database',
  timezone: 'Europe/Berlin',
  person_id: '0196f7a0-3c1e-7000-8000-00000000000c',
  person_name: 'Ada',
  layer: 'weekdays',
  // 09:00 in Berlin (winter time, UTC+1), a week.
  starts_at: '2026-12-07T08:00:00.000Z',
  ends_at: '2026-12-14T08:00:00.000Z',
};
const notice: Notification = { id: handoff.handoff_id, type: 'schedule.handoff', alert: { handoff } };

describe('handoff notices in words', () => {
  it('say who is on call for which schedule, from when to when in the schedule’s time and in UTC, and by which layer', () => {
    expect(messageLines(notice)).to.deep.equal([
      '[ON CALL] Ada is on call for Database',
      'From Mon 7 Dec 09:00 to Mon 14 Dec 09:00 (Europe/Berlin)',
      '2026-12-07T08:00:00.000Z to 2026-12-14T08:00:00.000Z UTC',
      'Layer: weekdays',
      `Schedule ${handoff.schedule_id}`,
    ]);
    expect(messageLines({ ...notice, alert: { handoff: { ...handoff, layer: 'override' } } })[3]).to.equal('By an override of the schedule');
    expect(emailSubject(notice)).to.equal('[alertmon] On call: Ada, Database, from Mon 7 Dec 09:00');
  });

  it('go to webhooks as {type, handoff}, with no alert', () => {
    expect(webhookBody(notice, BUILT_IN)).to.deep.equal({ type: 'schedule.handoff', handoff });
  });
});
