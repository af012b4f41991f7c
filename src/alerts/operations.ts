// Reading alerts, the lifecycle actions (docs/api.md, Alerts), and the application of
// evaluated buckets: every place an alert is raised, changed or resolved. Reads take the
// workspace and filter by it: another workspace's alert is simply not found.
import { conflict, notFound } from '../errors.js';
import type { Page } from '../page.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import { alertChangesFor, type AlertSubject, type JudgedBucket, type RunState } from './evaluationChanges.js';
import { ackTokenMatches } from './ackTokens.js';
import type { AcknowledgedVia, Alert, AlertStatus } from './model.js';
import { insertNotifications, type NewNotification } from './outbox.js';
import { findAlert, insertAlerts, listAlertRows, findAlertById, lockOpenAlerts, setAlertStatus, updateAlerts } from './store.js';
import { transitionFor, type AlertAction } from './transitions.js';

export function listAlerts(db: Queryable, workspaceId: string, page: Page, status?: AlertStatus): Promise<Alert[]> {
  return listAlertRows(db, workspaceId, page, status);
}

export async function getAlert(db: Queryable, workspaceId: string, alertId: string): Promise<Alert> {
  const alert = await findAlert(db, workspaceId, alertId);
  if (!alert) throw notFound('alert');
  return alert;
}

/**
 * Acknowledges, resolves or archives an alert: 404 when it is not the workspace's, 409
 * (invalid_transition) when its status does not allow the action. A notifying transition
 * writes its outbox row in the same transaction.
 */
export async function applyAlertAction(db: PostgresStore, workspaceId: string, alertId: string, action: AlertAction, now: Date): Promise<Alert> {
  return db.transaction(async (tx) => {
    const current = await findAlert(tx, workspaceId, alertId, true);
    if (!current) throw notFound('alert');
    return applyTransition(tx, current, action, now, 'api');
  });
}

async function applyTransition(tx: Queryable, current: Alert, action: AlertAction, now: Date, via: AcknowledgedVia): Promise<Alert> {
  const transition = transitionFor(action, current.status);
  if (!transition) throw conflict('invalid_transition', `An alert that is ${current.status} cannot be ${PAST[action]}.`);
  const updated = await setAlertStatus(tx, current.workspace_id, current.alert_id, transition.to, transition.stamp, now, via);
  if (transition.notifies) await insertNotifications(tx, [{ type: transition.notifies, alert: updated }], now);
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

/** The evaluated buckets of one policy, in order, and its evaluation state before them. */
export interface PolicyBuckets {
  readonly subject: AlertSubject;
  readonly state: RunState;
  readonly buckets: readonly JudgedBucket[];
}

export interface AppliedBuckets {
  readonly raised: number;
  readonly resolved: number;
  /** Per policy, the alert its last step created or changed (null when none), and the state to keep. */
  readonly results: ReadonlyMap<string, { readonly latest: Alert | null; readonly state: RunState }>;
}

/**
 * Applies evaluated buckets to their policies' alerts, inside the caller's transaction: locks
 * the open alerts, decides each policy's changes, and writes alerts and outbox rows, one
 * statement per kind of change however many policies there are.
 */
export async function applyEvaluatedBuckets(tx: Queryable, policies: readonly PolicyBuckets[], now: Date): Promise<AppliedBuckets> {
  const judged = policies.filter((p) => p.buckets.some((b) => b.verdict !== 'none' || b.openVerdict !== 'none')).map((p) => p.subject.policy_id);
  const open = new Map((await lockOpenAlerts(tx, judged)).map((a) => [a.policy_id, a]));
  const inserts: Alert[] = [];
  const updates: Alert[] = [];
  const notifications: NewNotification[] = [];
  const results = new Map<string, { latest: Alert | null; state: RunState }>();
  for (const p of policies) {
    const changes = alertChangesFor(p.subject, p.state, open.get(p.subject.policy_id) ?? null, p.buckets, now);
    inserts.push(...changes.inserts);
    updates.push(...changes.updates);
    notifications.push(...changes.notifications);
    results.set(p.subject.policy_id, { latest: changes.latest, state: changes.state });
  }
  // Resolving an open alert first frees the policy's one open slot for an alert raised after it.
  await updateAlerts(tx, updates);
  await insertAlerts(tx, inserts);
  await insertNotifications(tx, notifications, now);
  return {
    raised: notifications.filter((n) => n.type === 'alert.triggered').length,
    resolved: notifications.filter((n) => n.type === 'alert.resolved').length,
    results,
  };
}
