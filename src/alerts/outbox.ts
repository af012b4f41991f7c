// The outbox of alert notifications: written in the transaction of the transition that
// notifies, read by the delivery worker (src/delivery/), which turns each row into
// delivery attempts. `alert` is alertJson of the alert right after the transition.
import { newId } from '../ids.js';
import type { Queryable } from '../stores/postgres.js';
import { alertJson, type Alert } from './model.js';
import type { NotificationType } from './transitions.js';

export interface Notification {
  readonly type: NotificationType;
  /** The alert as it is right after the transition. */
  readonly alert: Alert;
  readonly at: Date;
}

export async function insertNotifications(tx: Queryable, notifications: readonly Notification[]): Promise<void> {
  if (notifications.length === 0) return;
  const rows = notifications.map((n) => ({
    notification_id: newId(),
    workspace_id: n.alert.workspace_id,
    alert_id: n.alert.alert_id,
    policy_id: n.alert.policy_id,
    type: n.type,
    alert: alertJson(n.alert),
    created_at: n.at.toISOString(),
  }));
  await tx.query(
    `INSERT INTO alert_notifications (notification_id, workspace_id, alert_id, policy_id, type, alert, created_at)
     SELECT x.notification_id, x.workspace_id, x.alert_id, x.policy_id, x.type, x.alert, x.created_at
     FROM jsonb_to_recordset($1::jsonb)
       AS x(notification_id uuid, workspace_id text, alert_id uuid, policy_id uuid, type text, alert jsonb, created_at timestamptz)`,
    [JSON.stringify(rows)],
  );
}
