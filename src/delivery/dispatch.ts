// The alert outbox (alert_notifications, written by alert transitions) turned into delivery
// attempts: one pending attempt per matching enabled destination, and the notification
// marked dispatched, in one short transaction. A notification that a silence covers gets
// silenced attempts instead (recorded, never sent); a silenced alert.triggered is also held,
// to be notified when the silence ends (src/silences/release.ts). SKIP LOCKED lets several
// workers dispatch side by side without taking the same notification.
import { HANDOFF_TYPE, type NotificationType, type OnCallPaged } from '../notifications/model.js';
import { holdNotifications, markNotificationsDispatched, outboxHas } from '../notifications/outbox.js';
import { channelModule, type Channel } from '../channels/registry.js';
import type { Credentials } from '../channels/model.js';
import { inhibitingAlerts } from '../alertsources/inhibition.js';
import { matchingLabels, type MatchableAlert } from '../matchers/alertLabels.js';
import { silencedNotificationIds } from '../silences/check.js';
import type { PostgresStore } from '../stores/postgres.js';
import { insertPendingAttempts, type NewAttempt } from './attempts.js';
import { holdForGrouping } from './groups.js';
import type { DeliverySettings } from './model.js';

interface PendingNotification {
  notification_id: string;
  workspace_id: string;
  /** null for a handoff notice (its attempts are filed under its own id). */
  alert_id: string | null;
  /** The alert's policy, or its alert source; null for a handoff notice. */
  policy_id: string | null;
  /** What silences match on (src/matchers/alertLabels.ts), from the notified alert. */
  matchable: MatchableAlert;
  type: NotificationType | typeof HANDOFF_TYPE;
  created_at: Date;
  destination_id: string | null;
  channel: Channel | null;
  url: string | null;
  credentials: Credentials | null;
  owner_email: string | null;
  /** alert.escalated of a step naming schedules or people: whom it paged (escalation.on_call). */
  on_call: OnCallPaged[] | null;
}

/** An attempt for each schedule an escalation step found no one on call in: recorded, nothing sent, the chain goes on. */
function noOneOnCallAttempts(notifications: readonly PendingNotification[]): NewAttempt[] {
  return notifications.flatMap((n) =>
    (n.on_call ?? [])
      .filter((p) => p.person_id === null && p.schedule_id !== null)
      .map((p) => ({
        workspaceId: n.workspace_id,
        alertId: n.alert_id!,
        destinationId: null,
        notificationId: n.notification_id,
        kind: 'alert' as const,
        type: n.type,
        channel: 'schedule',
        target: `schedule ${p.schedule_id}: no one on call`,
        attempt: 1,
        dueInMs: null,
      })),
  );
}

/** Dispatches up to `limit` notifications; returns how many attempts it created and how many notifications it took. */
export async function dispatchNotifications(
  postgres: PostgresStore,
  settings: DeliverySettings,
  limit: number,
): Promise<{ notifications: number; attempts: number }> {
  if (!(await outboxHas(postgres, 'undispatched'))) return { notifications: 0, attempts: 0 };
  return postgres.transaction(async (tx) => {
    // Routing (docs/api.md, Destinations and deliveries): scope all, or the alert's policy (or, for a received alert, its
    // alert source) among the destination's policy_ids;
    // a notification that names its destinations (an escalation step) goes to those.
    const rows = await tx.query<PendingNotification>(
      `WITH picked AS (
         SELECT notification_id, workspace_id, alert_id, COALESCE(policy_id, alert_source_id) AS policy_id, type, created_at, destination_ids,
                alert -> 'escalation' -> 'on_call' AS on_call,
                jsonb_build_object('labels', alert->'labels', 'alert_source_id', alert->'alert_source_id', 'policy_id', alert->'policy_id',
                  'title', alert->'title', 'severity', alert->'severity', 'event', alert->'event', 'agent', alert->'agent') AS matchable
         FROM alert_notifications
         WHERE dispatched_at IS NULL ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED
       )
       SELECT p.notification_id, p.workspace_id, p.alert_id, p.policy_id, p.matchable, p.type, p.created_at, p.on_call,
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
        alertId: r.alert_id ?? r.notification_id,
        destinationId: r.destination_id!,
        notificationId: r.notification_id,
        kind: r.type === HANDOFF_TYPE ? 'handoff' : 'alert',
        type: r.type,
        channel: r.channel!,
        target: channelModule(r.channel!).target({ url: r.url, credentials: r.credentials }, r.owner_email, settings),
        attempt: 1,
        dueInMs: 0,
      }));
    const notifications = [...new Map(rows.map((r) => [r.notification_id, r])).values()];
    // Silences are about alerts: a handoff notice is never silenced.
    const silenced = await silencedNotificationIds(
      tx,
      notifications.flatMap((r) =>
        r.policy_id === null
          ? []
          : [{ notificationId: r.notification_id, workspaceId: r.workspace_id, policyId: r.policy_id, labels: matchingLabels(r.matchable), at: r.created_at }],
      ),
    );
    // Inhibition (src/alertsources/inhibition.ts): a received alert's notification that its source's rules suppress.
    const inhibiting = await inhibitingAlerts(
      tx,
      notifications.flatMap((r) =>
        r.alert_id !== null && !silenced.has(r.notification_id) && typeof r.matchable.alert_source_id === 'string'
          ? [{ alertId: r.alert_id, alertSourceId: r.matchable.alert_source_id, labels: matchingLabels(r.matchable) }]
          : [],
      ),
    );
    const inhibited = new Set(notifications.filter((r) => r.alert_id !== null && inhibiting.has(r.alert_id)).map((r) => r.notification_id));
    const pending = await insertPendingAttempts(
      tx,
      attempts.filter((a) => !silenced.has(a.notificationId!) && !inhibited.has(a.notificationId!)),
    );
    // Grouping: a destination's window holds some of them, to be sent as one (groups.ts).
    await holdForGrouping(tx, pending);
    await insertPendingAttempts(
      tx,
      attempts.filter((a) => silenced.has(a.notificationId!)),
      'silenced',
    );
    await insertPendingAttempts(
      tx,
      attempts.filter((a) => inhibited.has(a.notificationId!)),
      'inhibited',
    );
    const held = notifications.filter((r) => r.type === 'alert.triggered' && (silenced.has(r.notification_id) || inhibited.has(r.notification_id)));
    await holdNotifications(
      tx,
      held.map((r) => r.notification_id),
      new Date(),
    );
    await insertPendingAttempts(tx, noOneOnCallAttempts(notifications), 'no_one_on_call');
    const notificationIds = notifications.map((r) => r.notification_id);
    await markNotificationsDispatched(tx, notificationIds);
    return { notifications: notificationIds.length, attempts: attempts.length };
  });
}
