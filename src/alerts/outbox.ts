// The outbox of alert notifications: written in the transaction of the transition that
// notifies, read by the delivery worker (src/delivery/), which turns each row into
// delivery attempts. This module holds the one Notification type both sides use.
import { newId } from '../ids.js';
import type { Queryable } from '../stores/postgres.js';
import { alertJson, type Alert, type AlertJson } from './model.js';

/** What an outbox row tells: an alert raised, resolved, or still triggered (a reminder). */
export const NOTIFICATION_TYPES = ['alert.triggered', 'alert.resolved', 'alert.reminder'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/**
 * The alert a notification carries: alertJson of the alert at the moment of the notification.
 * A row written by an older version lacks the fields added since, and a test send's synthetic
 * alert belongs to no policy, so readers take every field as possibly absent or null.
 */
export type NotifiedAlert = { readonly [K in keyof AlertJson]?: AlertJson[K] | null };

/** A notification as delivery sends it: an outbox row, or a test send (never written to the outbox). */
export interface Notification {
  /** The outbox row's id (a test send's synthetic alert id): the same on every retry, so receivers dedupe on it. */
  readonly id: string;
  readonly type: NotificationType | 'test';
  readonly alert: NotifiedAlert;
}

/** A notification to write: the alert as it is right after the transition. */
export interface NewNotification {
  readonly type: NotificationType;
  readonly alert: Alert;
}

export async function insertNotifications(tx: Queryable, notifications: readonly NewNotification[], at: Date): Promise<void> {
  if (notifications.length === 0) return;
  const rows = notifications.map((n) => ({
    notification_id: newId(),
    workspace_id: n.alert.workspace_id,
    alert_id: n.alert.alert_id,
    policy_id: n.alert.policy_id,
    type: n.type,
    alert: alertJson(n.alert),
    created_at: at.toISOString(),
  }));
  await tx.query(
    `INSERT INTO alert_notifications (notification_id, workspace_id, alert_id, policy_id, type, alert, created_at)
     SELECT x.notification_id, x.workspace_id, x.alert_id, x.policy_id, x.type, x.alert, x.created_at
     FROM jsonb_to_recordset($1::jsonb)
       AS x(notification_id uuid, workspace_id text, alert_id uuid, policy_id uuid, type text, alert jsonb, created_at timestamptz)`,
    [JSON.stringify(rows)],
  );
}
