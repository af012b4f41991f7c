// Reminders (renotify_minutes): while an alert stays triggered, an alert.reminder
// notification every that many minutes, counted from its last notification. Due reminders
// are found and written in one transaction per cycle, whatever the number of alerts; the
// next one is counted from when this one was due, so reminders do not drift by the cycle's
// lateness. Acknowledging or resolving an alert stops them (it is no longer triggered).
// An alert whose row another transaction holds at that moment (the delivery worker recording
// a send) is skipped, not waited for: waiting could deadlock with that transaction's own
// locks, and the next cycle reminds it, counted from when it was due.
import { insertNotifications } from '../notifications/outbox.js';
import type { Queryable } from '../stores/postgres.js';
import { notificationOf } from './notifications.js';
import { advanceDueReminders } from './store.js';

/** Writes the reminders due at `now`; returns how many. Call it in a transaction. */
export async function writeDueReminders(tx: Queryable, now: Date): Promise<number> {
  const alerts = await advanceDueReminders(tx, now);
  await insertNotifications(
    tx,
    alerts.map((alert) => notificationOf('alert.reminder', alert)),
    now,
  );
  return alerts.length;
}
