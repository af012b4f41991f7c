// What a schedule.handoff notice says (docs/oncall.md, Handoff notices): whose shift starts,
// in which schedule, from when to when (UTC and the schedule's local time). It names no
// alert, so destinations' templates (made for alerts) are not used for it.
import type { HandoffNotice, Notification } from '../notifications/model.js';

/** The handoff a notification announces, or null for any other notification. */
export function handoffOf(notification: Notification): HandoffNotice | null {
  return notification.type === 'schedule.handoff' ? (notification.alert.handoff ?? null) : null;
}

/** "Mon 7 Dec 09:00" in the schedule's timezone. */
function local(iso: string, timezone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  })
    .format(new Date(iso))
    .replace(',', '');
}

export function handoffHeadline(h: HandoffNotice): string {
  return `[ON CALL] ${h.person_name} is on call for ${h.schedule_name}`;
}

export function handoffLines(h: HandoffNotice): string[] {
  return [
    handoffHeadline(h),
    `From ${local(h.starts_at, h.timezone)} to ${local(h.ends_at, h.timezone)} (${h.timezone})`,
    `${h.starts_at} to ${h.ends_at} UTC`,
    h.layer === 'override' ? 'By an override of the schedule' : `Layer: ${h.layer}`,
    `Schedule ${h.schedule_id}`,
  ];
}

export function handoffSubject(h: HandoffNotice): string {
  return `[alertmon] On call: ${h.person_name}, ${h.schedule_name}, from ${local(h.starts_at, h.timezone)}`;
}
