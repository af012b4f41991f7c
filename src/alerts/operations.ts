// Reading alerts and the lifecycle actions (docs/api.md, Alerts). Every function takes
// the workspace and filters by it: another workspace's alert is simply not found.
import { conflict, notFound } from '../errors.js';
import type { Page } from '../page.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import type { Alert, AlertStatus } from './model.js';
import { insertNotifications } from './outbox.js';
import { findAlert, listAlertRows, setAlertStatus } from './store.js';
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
    const transition = transitionFor(action, current.status);
    if (!transition) throw conflict('invalid_transition', `An alert that is ${current.status} cannot be ${PAST[action]}.`);
    const updated = await setAlertStatus(tx, workspaceId, alertId, transition.to, transition.stamp, now);
    if (transition.notifies) await insertNotifications(tx, [{ type: transition.notifies, alert: updated, at: now }]);
    return updated;
  });
}

const PAST: Record<AlertAction, string> = { acknowledge: 'acknowledged', resolve: 'resolved', archive: 'archived' };
