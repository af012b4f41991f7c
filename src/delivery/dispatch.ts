// The alert outbox (alert_notifications, written by alert transitions) turned into delivery
// attempts: one pending attempt per matching enabled destination, and the notification
// marked dispatched, in one short transaction. A notification that a silence covers gets
// silenced attempts instead (recorded, never sent); a silenced alert.triggered is also held,
// to be notified when the silence ends (src/silences/release.ts). SKIP LOCKED lets several
// workers dispatch side by side without taking the same notification.
import { holdNotifications, outboxHas, type NotificationType } from '../alerts/outbox.js';
import { channelModule, type Channel } from '../channels/registry.js';
import type { Credentials } from '../channels/model.js';
import { silencedNotificationIds } from '../silences/check.js';
import type { PostgresStore } from '../stores/postgres.js';
import { insertPendingAttempts, type NewAttempt } from './attempts.js';
import { holdForGrouping } from './groups.js';
import type { DeliverySettings } from './model.js';

interface PendingNotification {
  notification_id: string;
  workspace_id: string;
  alert_id: string;
  policy_id: string;
  type: NotificationType;
  created_at: Date;
  destination_id: string | null;
  channel: Channel | null;
  url: string | null;
  credentials: Credentials | null;
  owner_email: string | null;
}

/** Dispatches up to `limit` notifications; returns how many attempts it created and how many notifications it took. */
export async function dispatchNotifications(
  postgres: PostgresStore,
  settings: DeliverySettings,
  limit: number,
): Promise<{ notifications: number; attempts: number }> {
  if (!(await outboxHas(postgres, 'undispatched'))) return { notifications: 0, attempts: 0 };
  return postgres.transaction(async (tx) => {
    // Routing (docs/api.md, Destinations and deliveries): scope all, or the alert's policy among the destination's policy_ids;
    // a notification that names its destinations (an escalation step) goes to those.
    const rows = await tx.query<PendingNotification>(
      `WITH picked AS (
         SELECT notification_id, workspace_id, alert_id, policy_id, type, created_at, destination_ids FROM alert_notifications
         WHERE dispatched_at IS NULL ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED
       )
       SELECT p.notification_id, p.workspace_id, p.alert_id, p.policy_id, p.type, p.created_at,
              d.destination_id, d.channel, d.url, d.credentials, w.email AS owner_email
       FROM picked p
       JOIN workspaces w ON w.user_id = p.workspace_id
       LEFT JOIN destinations d ON d.workspace_id = p.workspace_id AND d.enabled
         AND CASE WHEN p.destination_ids IS NULL THEN d.scope = 'all' OR p.policy_id = ANY (d.policy_ids)
                  ELSE d.destination_id = ANY (p.destination_ids) END
       ORDER BY p.created_at, p.notification_id, d.created_at`,
      [limit],
    );
    if (rows.length === 0) return { notifications: 0, attempts: 0 };
    const attempts: NewAttempt[] = rows
      .filter((r) => r.destination_id !== null && r.channel !== null)
      .map((r) => ({
        workspaceId: r.workspace_id,
        alertId: r.alert_id,
        destinationId: r.destination_id!,
        notificationId: r.notification_id,
        kind: 'alert',
        type: r.type,
        channel: r.channel!,
        target: channelModule(r.channel!).target({ url: r.url, credentials: r.credentials }, r.owner_email, settings),
        attempt: 1,
        dueInMs: 0,
      }));
    const notifications = [...new Map(rows.map((r) => [r.notification_id, r])).values()];
    const silenced = await silencedNotificationIds(
      tx,
      notifications.map((r) => ({ notificationId: r.notification_id, workspaceId: r.workspace_id, policyId: r.policy_id, at: r.created_at })),
    );
    const pending = await insertPendingAttempts(
      tx,
      attempts.filter((a) => !silenced.has(a.notificationId!)),
    );
    // Grouping: a destination's window holds some of them, to be sent as one (groups.ts).
    await holdForGrouping(tx, pending);
    await insertPendingAttempts(
      tx,
      attempts.filter((a) => silenced.has(a.notificationId!)),
      'silenced',
    );
    const held = notifications.filter((r) => r.type === 'alert.triggered' && silenced.has(r.notification_id));
    await holdNotifications(
      tx,
      held.map((r) => r.notification_id),
      new Date(),
    );
    const notificationIds = notifications.map((r) => r.notification_id);
    await tx.query(`UPDATE alert_notifications SET dispatched_at = now() WHERE notification_id = ANY ($1::uuid[])`, [notificationIds]);
    return { notifications: notificationIds.length, attempts: attempts.length };
  });
}
