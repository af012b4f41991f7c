// Reading alerts and the lifecycle actions (INTERFACE §3, DECISIONS H). Every function takes
// the workspace and filters by it: another workspace's alert is simply not found.
import { conflict, notFound } from '../errors.js';
import type { Page } from '../page.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import { insertNotifications } from './outbox.js';
import { ALERT_COLUMNS, type Alert, type AlertStatus } from './representation.js';
import { transitionFor, type AlertAction } from './transitions.js';

export async function listAlerts(db: Queryable, workspaceId: string, page: Page, status?: AlertStatus): Promise<Alert[]> {
  return db.query<Alert>(
    `SELECT ${ALERT_COLUMNS} FROM alerts
     WHERE workspace_id = $1 AND ($2::text IS NULL OR status = $2)
     ORDER BY triggered_at DESC, alert_id DESC LIMIT $3 OFFSET $4`,
    [workspaceId, status ?? null, page.limit, page.offset],
  );
}

export async function getAlert(db: Queryable, workspaceId: string, alertId: string): Promise<Alert> {
  const rows = await db.query<Alert>(`SELECT ${ALERT_COLUMNS} FROM alerts WHERE workspace_id = $1 AND alert_id = $2`, [workspaceId, alertId]);
  if (!rows[0]) throw notFound('alert');
  return rows[0];
}

/**
 * Acknowledges, resolves or archives an alert: 404 when it is not the workspace's, 409
 * (invalid_transition) when its status does not allow the action. A notifying transition
 * writes its outbox row in the same transaction.
 */
export async function applyAlertAction(db: PostgresStore, workspaceId: string, alertId: string, action: AlertAction, now: Date): Promise<Alert> {
  return db.transaction(async (tx) => {
    const [current] = await tx.query<Alert>(`SELECT ${ALERT_COLUMNS} FROM alerts WHERE workspace_id = $1 AND alert_id = $2 FOR UPDATE`, [workspaceId, alertId]);
    if (!current) throw notFound('alert');
    const transition = transitionFor(action, current.status);
    if (!transition) throw conflict('invalid_transition', `An alert that is ${current.status} cannot be ${PAST[action]}.`);
    const [updated] = await tx.query<Alert>(
      `UPDATE alerts SET status = $3, ${transition.stamp} = $4, updated_at = $4
       WHERE workspace_id = $1 AND alert_id = $2 RETURNING ${ALERT_COLUMNS}`,
      [workspaceId, alertId, transition.to, now],
    );
    if (transition.notifies) await insertNotifications(tx, [{ type: transition.notifies, alert: updated!, at: now }]);
    return updated!;
  });
}

const PAST: Record<AlertAction, string> = { acknowledge: 'acknowledged', resolve: 'resolved', archive: 'archived' };
