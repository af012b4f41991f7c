// Policies, alerts and outbox rows made with plain SQL on the real tables, the way an alert
// transition writes them, so delivery tests do not depend on the evaluation worker.
import { ensureEventDefinitions } from '../../src/events/store.js';
import { newId } from '../../src/ids.js';
import type { PostgresStore, Queryable } from '../../src/stores/postgres.js';

export interface SeededPolicy {
  readonly policyId: string;
  readonly eventId: string;
}

export async function seedPolicy(db: PostgresStore, workspaceId: string, title = 'High latency'): Promise<SeededPolicy> {
  const [ensured] = await ensureEventDefinitions(db, workspaceId, [{ agent: 'web-1', event: 'http.latency_ms' }], 1_000_000);
  if (ensured instanceof Error) throw ensured;
  const { definition } = ensured!;
  const policyId = newId();
  await db.query(
    `INSERT INTO policies (policy_id, workspace_id, event_id, title, period, aggregate, condition, threshold, severity)
     VALUES ($1, $2, $3, $4, 'minute', 'p95_est', 'gt', 500, 'critical')`,
    [policyId, workspaceId, definition.event_id, title],
  );
  return { policyId, eventId: definition.event_id };
}

/** An alert object as the API shows it. */
export function alertObject(alertId: string, policy: SeededPolicy, status: 'triggered' | 'resolved', title = 'High latency') {
  const now = new Date().toISOString();
  return {
    alert_id: alertId,
    policy_id: policy.policyId,
    event_id: policy.eventId,
    agent: 'web-1',
    event: 'http.latency_ms',
    title,
    channel: 'default',
    period: 'minute',
    aggregate: 'p95_est',
    condition: 'gt',
    threshold: 500,
    severity: 'critical',
    value: status === 'triggered' ? 812.5 : 120,
    count: 40,
    min: 20,
    max: 990,
    status,
    triggered_at: now,
    acknowledged_at: null,
    resolved_at: status === 'resolved' ? now : null,
    alerted_at: null,
  };
}

/**
 * Creates a triggered alert of the policy and its 'alert.triggered' outbox row. A policy has
 * at most one open alert: an earlier open one is archived first, without a notification.
 */
export async function raiseAlert(db: Queryable, workspaceId: string, policy: SeededPolicy): Promise<{ alertId: string; notificationId: string }> {
  const alertId = newId();
  await db.query(`UPDATE alerts SET status = 'archived', archived_at = now() WHERE policy_id = $1 AND status IN ('triggered', 'acknowledged')`, [
    policy.policyId,
  ]);
  await db.query(
    `INSERT INTO alerts (alert_id, workspace_id, policy_id, event_id, agent, event, title, channel, period, aggregate, condition, threshold,
       severity, value, count, min, max, bucket_start, bucket_end, status)
     VALUES ($1, $2, $3, $4, 'web-1', 'http.latency_ms', 'High latency', 'default', 'minute', 'p95_est', 'gt', 500, 'critical',
       812.5, 40, 20, 990, now() - interval '1 minute', now(), 'triggered')`,
    [alertId, workspaceId, policy.policyId, policy.eventId],
  );
  const notificationId = await notify(db, workspaceId, alertId, policy, 'alert.triggered');
  return { alertId, notificationId };
}

/** Resolves the alert and writes its 'alert.resolved' outbox row. */
export async function resolveAlert(db: Queryable, workspaceId: string, alertId: string, policy: SeededPolicy): Promise<string> {
  await db.query(`UPDATE alerts SET status = 'resolved', resolved_at = now() WHERE alert_id = $1`, [alertId]);
  return notify(db, workspaceId, alertId, policy, 'alert.resolved');
}

async function notify(db: Queryable, workspaceId: string, alertId: string, policy: SeededPolicy, type: 'alert.triggered' | 'alert.resolved'): Promise<string> {
  const notificationId = newId();
  const alert = alertObject(alertId, policy, type === 'alert.triggered' ? 'triggered' : 'resolved');
  await db.query(`INSERT INTO alert_notifications (notification_id, workspace_id, alert_id, policy_id, type, alert) VALUES ($1, $2, $3, $4, $5, $6)`, [
    notificationId,
    workspaceId,
    alertId,
    policy.policyId,
    type,
    alert,
  ]);
  return notificationId;
}
