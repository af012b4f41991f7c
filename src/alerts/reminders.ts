// Reminders (renotify_minutes): while an alert stays triggered, an alert.reminder
// notification every that many minutes, counted from its last notification. Due reminders
// are found and written in one transaction per cycle, whatever the number of alerts; the
// next one is counted from when this one was due, so reminders do not drift by the cycle's
// lateness. Acknowledging or resolving an alert stops them (it is no longer triggered).
// An alert whose row another transaction holds at that moment (the delivery worker recording
// a send) is skipped, not waited for: waiting could deadlock with that transaction's own
// locks, and the next cycle reminds it, counted from when it was due.
import type { Queryable } from '../stores/postgres.js';
import type { Alert } from './model.js';
import { insertNotifications } from './outbox.js';

/** Writes the reminders due at `now`; returns how many. Call it in a transaction. */
export async function writeDueReminders(tx: Queryable, now: Date): Promise<number> {
  const alerts = await tx.query<Alert>(
    `WITH due AS (
       SELECT a.alert_id, p.renotify_minutes * interval '1 minute' AS every
       FROM alerts a JOIN policies p ON p.policy_id = a.policy_id
       WHERE a.status = 'triggered' AND p.renotify_minutes IS NOT NULL
         AND a.notified_at + p.renotify_minutes * interval '1 minute' <= $1::timestamptz
       FOR UPDATE OF a SKIP LOCKED
     )
     UPDATE alerts a
     SET notified_at = a.notified_at + due.every * floor(extract(epoch FROM $1::timestamptz - a.notified_at) / extract(epoch FROM due.every))
     FROM due WHERE a.alert_id = due.alert_id
     RETURNING a.*`,
    [now],
  );
  await insertNotifications(
    tx,
    alerts.map((alert) => ({ type: 'alert.reminder', alert })),
    now,
  );
  return alerts.length;
}
