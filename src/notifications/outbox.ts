// The outbox of notifications (alert_notifications): written in the transaction of whatever
// notifies (an alert's transition, a reminder, an escalation step), read by the delivery
// worker (src/delivery/), which turns each row into delivery attempts. Every write to the
// table goes through here.
import { newId } from '../ids.js';
import type { Queryable } from '../stores/postgres.js';
import { ACK_LINK_TYPES, newAckToken, storeAckTokens } from './ackTokens.js';
import { type AlertJson, type EscalationPosition, HANDOFF_TYPE, type HandoffNotice, type NotificationType } from './model.js';

/**
 * The Postgres channel a committed insert into the outbox notifies (a trigger of migration
 * 0013 sends it, whatever wrote the row), so the delivery workers wake at once.
 */
export const OUTBOX_SIGNAL_CHANNEL = 'alertmon_outbox';

/** A notification to write: the alert as it is right after the transition (notificationOf, src/alerts/notifications.ts). */
export interface NewNotification {
  readonly type: NotificationType;
  readonly workspaceId: string;
  readonly alert: AlertJson;
  /** Send to these destinations instead of those the routing picks (an escalation step). */
  readonly destinationIds?: readonly string[];
  readonly escalation?: EscalationPosition;
}

/**
 * Writes the notifications; each one whose message asks a person to act, of an alert still
 * triggered, gets an acknowledge link token of its own.
 */
export async function insertNotifications(tx: Queryable, notifications: readonly NewNotification[], at: Date): Promise<void> {
  if (notifications.length === 0) return;
  const tokens: { alertId: string; token: string }[] = [];
  const rows = notifications.map((n) => {
    const linked = ACK_LINK_TYPES.includes(n.type) && n.alert.status === 'triggered';
    const ackToken = linked ? newAckToken() : null;
    if (ackToken !== null) tokens.push({ alertId: n.alert.alert_id, token: ackToken });
    return {
      notification_id: newId(),
      workspace_id: n.workspaceId,
      alert_id: n.alert.alert_id,
      policy_id: n.alert.policy_id,
      alert_source_id: n.alert.alert_source_id,
      type: n.type,
      alert: { ...n.alert, ...(ackToken === null ? {} : { ack_token: ackToken }), ...(n.escalation ? { escalation: n.escalation } : {}) },
      destination_ids: n.destinationIds ?? null,
      created_at: at.toISOString(),
    };
  });
  await storeAckTokens(tx, tokens);
  await tx.query(
    `INSERT INTO alert_notifications (notification_id, workspace_id, alert_id, policy_id, alert_source_id, type, alert, destination_ids, created_at)
     SELECT x.notification_id, x.workspace_id, x.alert_id, x.policy_id, x.alert_source_id, x.type, x.alert, x.destination_ids, x.created_at
     FROM jsonb_to_recordset($1::jsonb)
       AS x(notification_id uuid, workspace_id text, alert_id uuid, policy_id uuid, alert_source_id uuid, type text, alert jsonb,
            destination_ids uuid[], created_at timestamptz)`,
    [JSON.stringify(rows)],
  );
}

/**
 * Writes a schedule.handoff notice for each handoff, to the destinations given: its row's id
 * is the handoff's, and it carries no alert (its `alert` holds only the handoff).
 */
export async function insertHandoffNotices(
  tx: Queryable,
  notices: readonly { readonly workspaceId: string; readonly handoff: HandoffNotice; readonly destinationIds: readonly string[] }[],
  at: Date,
): Promise<void> {
  if (notices.length === 0) return;
  const rows = notices.map((n) => ({
    notification_id: n.handoff.handoff_id,
    workspace_id: n.workspaceId,
    type: HANDOFF_TYPE,
    alert: { handoff: n.handoff },
    destination_ids: n.destinationIds,
    created_at: at.toISOString(),
  }));
  await tx.query(
    `INSERT INTO alert_notifications (notification_id, workspace_id, type, alert, destination_ids, created_at)
     SELECT x.notification_id, x.workspace_id, x.type, x.alert, x.destination_ids, x.created_at
     FROM jsonb_to_recordset($1::jsonb) AS x(notification_id uuid, workspace_id text, type text, alert jsonb, destination_ids uuid[], created_at timestamptz)`,
    [JSON.stringify(rows)],
  );
}

/**
 * Marks notifications as held: alert.triggered notifications a silence covered, to be sent
 * once no silence covers them any more if the alert is still open (src/silences/release.ts).
 */
export async function holdNotifications(tx: Queryable, notificationIds: readonly string[], at: Date): Promise<void> {
  if (notificationIds.length === 0) return;
  await tx.query(`UPDATE alert_notifications SET held_since = $2 WHERE notification_id = ANY ($1::uuid[])`, [notificationIds, at]);
}

/** No longer held: notified again, or no longer worth notifying. */
export async function unholdNotifications(tx: Queryable, notificationIds: readonly string[]): Promise<void> {
  if (notificationIds.length === 0) return;
  await tx.query(`UPDATE alert_notifications SET held_since = NULL WHERE notification_id = ANY ($1::uuid[])`, [notificationIds]);
}

/** Turned into delivery attempts (src/delivery/dispatch.ts): no longer waiting to be dispatched. */
export async function markNotificationsDispatched(tx: Queryable, notificationIds: readonly string[]): Promise<void> {
  if (notificationIds.length === 0) return;
  await tx.query(`UPDATE alert_notifications SET dispatched_at = now() WHERE notification_id = ANY ($1::uuid[])`, [notificationIds]);
}

/**
 * Whether any notification is held or waits to be dispatched: one statement outside a
 * transaction, so that a worker's idle poll does not hold the connection (the embedded
 * Postgres has one) through BEGIN, a query and COMMIT.
 */
export async function outboxHas(db: Queryable, what: 'held' | 'undispatched'): Promise<boolean> {
  const where = what === 'held' ? 'held_since IS NOT NULL' : 'dispatched_at IS NULL';
  const rows = await db.query<{ found: boolean }>(`SELECT EXISTS (SELECT 1 FROM alert_notifications WHERE ${where}) AS found`);
  return rows[0]?.found === true;
}
