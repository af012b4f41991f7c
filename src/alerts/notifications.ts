// Alerts' side of the outbox (src/notifications/outbox.ts): the notification of an alert as
// it is now, the held notifications with their alerts, and notifying an alert again.
import { insertNotifications, type NewNotification } from '../notifications/outbox.js';
import type { NotificationType } from '../notifications/model.js';
import type { Queryable } from '../stores/postgres.js';
import { alertJson, type Alert } from './model.js';
import { ALERT_COLUMNS, markNotified } from './store.js';

/** The notification of `type` of the alert as it is now (its AlertJson); `step` names an escalation step's destinations. */
export function notificationOf(type: NotificationType, alert: Alert, step?: Pick<NewNotification, 'destinationIds' | 'escalation'>): NewNotification {
  return { type, workspaceId: alert.workspace_id, alert: alertJson(alert), ...step };
}

/** A held notification with its alert as it is now. */
export interface HeldNotification {
  readonly notificationId: string;
  readonly alert: Alert;
}

/**
 * Up to `limit` held notifications after `after` (a notification id; null from the start), in
 * id order, locked until the transaction ends (other workers skip them).
 */
export async function lockHeldNotifications(tx: Queryable, limit: number, after: string | null): Promise<HeldNotification[]> {
  const columns = ALERT_COLUMNS.split(',').map((c) => `a.${c.trim()}`);
  const rows = await tx.query<Alert & { held_notification_id: string }>(
    `SELECT n.notification_id AS held_notification_id, ${columns.join(', ')}
     FROM alert_notifications n JOIN alerts a ON a.alert_id = n.alert_id
     WHERE n.held_since IS NOT NULL AND ($2::uuid IS NULL OR n.notification_id > $2::uuid)
     ORDER BY n.notification_id LIMIT $1 FOR UPDATE OF n SKIP LOCKED`,
    [limit, after],
  );
  return rows.map(({ held_notification_id, ...alert }) => ({ notificationId: held_notification_id, alert }));
}

/** Writes an alert.triggered notification for each alert, now, and counts reminders from it. */
export async function notifyAgain(tx: Queryable, alerts: readonly Alert[], at: Date): Promise<void> {
  if (alerts.length === 0) return;
  const updated = await markNotified(
    tx,
    alerts.map((a) => a.alert_id),
    at,
  );
  await insertNotifications(
    tx,
    updated.map((alert) => notificationOf('alert.triggered', alert)),
    at,
  );
}
