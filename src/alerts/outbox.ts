// The outbox of alert notifications: written in the transaction of the transition that
// notifies, read by the delivery worker (src/delivery/), which turns each row into
// delivery attempts. This module holds the one Notification type both sides use.
import { newId } from '../ids.js';
import type { Queryable } from '../stores/postgres.js';
import { ACK_LINK_TYPES, newAckToken, storeAckTokens } from './ackTokens.js';
import { alertJson, type Alert, type AlertJson } from './model.js';
import { ALERT_COLUMNS } from './store.js';

/**
 * The Postgres channel a committed insert into the outbox notifies (a trigger of migration
 * 0013 sends it, whatever wrote the row), so the delivery workers wake at once.
 */
export const OUTBOX_SIGNAL_CHANNEL = 'alertmon_outbox';

/** What an outbox row tells: an alert raised, resolved, still triggered (a reminder), or escalated to the next step's destinations. */
export const NOTIFICATION_TYPES = ['alert.triggered', 'alert.resolved', 'alert.reminder', 'alert.escalated'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/**
 * The alert a notification carries: alertJson of the alert at the moment of the notification.
 * A row written by an older version lacks the fields added since, and a test send's synthetic
 * alert belongs to no policy, so readers take every field as possibly absent or null.
 */
export type NotifiedAlert = { readonly [K in keyof AlertJson]?: AlertJson[K] | null } & {
  /** The acknowledge link's token (src/alerts/ackTokens.ts); channels show it as ack_url (src/channels/ackLink.ts), never as is. */
  readonly ack_token?: string | null;
  /** The acknowledge link, as channels send it (set from ack_token at send time). */
  readonly ack_url?: string | null;
  /** alert.escalated: which step of the chain this is. */
  readonly escalation?: EscalationPosition | null;
};

/** Step `step` of `of`, in round `round` (docs/api.md, Escalation). */
export interface EscalationPosition {
  readonly step: number;
  readonly of: number;
  readonly round: number;
}

/** The notification types a destination's grouping window holds (docs/api.md, Grouping). */
export const GROUPED_TYPES = ['alert.triggered', 'alert.resolved'] as const;
export type GroupedType = (typeof GROUPED_TYPES)[number];

/** alert.group: the notifications of one type that a destination's grouping window held, oldest first. */
export interface NotificationGroup {
  readonly type: GroupedType;
  readonly alerts: readonly NotifiedAlert[];
}

/** A notification as delivery sends it: an outbox row, a test send (never written to the outbox), or a group. */
export interface Notification {
  /** The outbox row's id (a test send's synthetic alert id, a group's id): the same on every retry, so receivers dedupe on it. */
  readonly id: string;
  readonly type: NotificationType | 'test' | 'alert.group';
  /** The alert notified (of a group: its first). */
  readonly alert: NotifiedAlert;
  /** alert.group only. */
  readonly group?: NotificationGroup;
}

/** A notification to write: the alert as it is right after the transition. */
export interface NewNotification {
  readonly type: NotificationType;
  readonly alert: Alert;
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
      workspace_id: n.alert.workspace_id,
      alert_id: n.alert.alert_id,
      policy_id: n.alert.policy_id,
      type: n.type,
      alert: { ...alertJson(n.alert), ...(ackToken === null ? {} : { ack_token: ackToken }), ...(n.escalation ? { escalation: n.escalation } : {}) },
      destination_ids: n.destinationIds ?? null,
      created_at: at.toISOString(),
    };
  });
  await storeAckTokens(tx, tokens);
  await tx.query(
    `INSERT INTO alert_notifications (notification_id, workspace_id, alert_id, policy_id, type, alert, destination_ids, created_at)
     SELECT x.notification_id, x.workspace_id, x.alert_id, x.policy_id, x.type, x.alert, x.destination_ids, x.created_at
     FROM jsonb_to_recordset($1::jsonb)
       AS x(notification_id uuid, workspace_id text, alert_id uuid, policy_id uuid, type text, alert jsonb, destination_ids uuid[], created_at timestamptz)`,
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

/** No longer held: notified again, or no longer worth notifying. */
export async function unholdNotifications(tx: Queryable, notificationIds: readonly string[]): Promise<void> {
  if (notificationIds.length === 0) return;
  await tx.query(`UPDATE alert_notifications SET held_since = NULL WHERE notification_id = ANY ($1::uuid[])`, [notificationIds]);
}

/** Writes an alert.triggered notification for each alert, now, and counts reminders from it. */
export async function notifyAgain(tx: Queryable, alerts: readonly Alert[], at: Date): Promise<void> {
  if (alerts.length === 0) return;
  const updated = await tx.query<Alert>(`UPDATE alerts SET notified_at = $2 WHERE alert_id = ANY ($1::uuid[]) RETURNING ${ALERT_COLUMNS}`, [
    alerts.map((a) => a.alert_id),
    at,
  ]);
  await insertNotifications(
    tx,
    updated.map((alert) => ({ type: 'alert.triggered', alert })),
    at,
  );
}
