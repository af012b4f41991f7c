// Reading alerts, the lifecycle actions (docs/api.md, Alerts), and the writing of what an
// evaluation decided: every place an alert is raised, changed or resolved. Reads take the
// workspace and filter by it: another workspace's alert is simply not found.
import { conflict, notFound } from '../errors.js';
import { labelsFingerprint } from '../labels/labels.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import { ackTokenMatches } from '../notifications/ackTokens.js';
import type { NotificationType } from '../notifications/model.js';
import { insertNotifications } from '../notifications/outbox.js';
import type { AcknowledgedVia, Alert } from './model.js';
import { notificationOf } from './notifications.js';
import { findAlert, findAlertById, insertAlerts, lockOpenAlerts, setAlertStatus, updateAlerts } from './store.js';
import { isRepeated, transitionFor, type AlertAction } from './transitions.js';

export async function getAlert(db: Queryable, workspaceId: string, alertId: string): Promise<Alert> {
  const alert = await findAlert(db, workspaceId, alertId);
  if (!alert) throw notFound('alert');
  return alert;
}

/**
 * Acknowledges, resolves or archives an alert: 404 when it is not the workspace's, the alert
 * unchanged when it is already in the action's target state (a repeat), 409
 * (invalid_transition) when its status does not allow the action. A notifying transition
 * writes its outbox row in the same transaction.
 */
export async function applyAlertAction(db: PostgresStore, workspaceId: string, alertId: string, action: AlertAction, now: Date): Promise<Alert> {
  return db.transaction(async (tx) => {
    const current = await findAlert(tx, workspaceId, alertId, true);
    if (!current) throw notFound('alert');
    if (isRepeated(action, current.status)) return current;
    return applyTransition(tx, current, action, now, 'api');
  });
}

async function applyTransition(tx: Queryable, current: Alert, action: AlertAction, now: Date, via: AcknowledgedVia): Promise<Alert> {
  const transition = transitionFor(action, current.status);
  if (!transition) throw conflict('invalid_transition', `An alert that is ${current.status} cannot be ${PAST[action]}.`);
  const updated = await setAlertStatus(tx, current.workspace_id, current.alert_id, transition.to, transition.stamp, now, via);
  if (transition.notifies) await insertNotifications(tx, [notificationOf(transition.notifies, updated)], now);
  return updated;
}

/**
 * Acknowledges the alert through a notification's acknowledge link. A wrong token, another
 * alert's token, an unknown alert and an alert no longer triggered all give the same 404, so
 * the link tells nothing about alerts it does not open.
 */
export async function acknowledgeFromLink(db: PostgresStore, alertId: string, token: string, now: Date): Promise<Alert> {
  return db.transaction(async (tx) => {
    const current = await findAlertById(tx, alertId, true);
    if (current?.status !== 'triggered' || !(await ackTokenMatches(tx, alertId, token))) throw notFound('alert');
    return applyTransition(tx, current, 'acknowledge', now, 'notification_link');
  });
}

/** Whether the link opens its alert now (the page's GET): the same checks as acknowledgeFromLink, changing nothing. */
export async function ackLinkOpens(db: Queryable, alertId: string, token: string): Promise<Alert> {
  const alert = await findAlertById(db, alertId);
  if (alert?.status !== 'triggered' || !(await ackTokenMatches(db, alertId, token))) throw notFound('alert');
  return alert;
}

const PAST: Record<AlertAction, string> = { acknowledge: 'acknowledged', resolve: 'resolved', archive: 'archived' };

/** What an evaluation writes: new alerts and changed ones, in their final state, and the notifications they send. */
export interface AlertWrites {
  readonly inserts: Alert[];
  readonly updates: Alert[];
  readonly notifications: AlertNotification[];
}

/** A notification an evaluation decided, with the alert in its final state. */
export interface AlertNotification {
  readonly type: NotificationType;
  readonly alert: Alert;
}

/**
 * Changes the open alerts of these policies, inside the caller's transaction: locks them,
 * has `decide` say what changes given each policy's open alert (the evaluation's rules), and
 * writes alerts and outbox rows, one statement per kind of change however many policies there
 * are. `decide` finds each open alert under keyOf(alert): its policy (one open alert per
 * policy), or byGroup (one per policy and group).
 */
export async function changeOpenAlerts(
  tx: Queryable,
  policyIds: readonly string[],
  decide: (open: ReadonlyMap<string, Alert>) => AlertWrites,
  now: Date,
  keyOf: (alert: Alert) => string = (a) => a.policy_id,
): Promise<void> {
  const open = new Map((await lockOpenAlerts(tx, policyIds)).map((a) => [keyOf(a), a]));
  const writes = decide(open);
  // Resolving an open alert first frees the policy's one open slot for an alert raised after it.
  await updateAlerts(tx, writes.updates);
  await insertAlerts(tx, writes.inserts);
  await insertNotifications(
    tx,
    writes.notifications.map((n) => notificationOf(n.type, n.alert)),
    now,
  );
}

/** An open alert's key among a fleet policy's: its policy and its labels' fingerprint (one open alert per group). */
export const openAlertKey = (policyId: string, labelsKey: string): string => `${policyId}\u0000${labelsKey}`;

/** How `decide` finds the open alerts of policies with one open alert per group (fleet policies). */
export const byGroup = (a: Alert): string => openAlertKey(a.policy_id, labelsFingerprint(a.labels));
