// A workspace with one webhook destination and `count` alert.triggered outbox rows, written
// with plain SQL the way alert transitions write them (one statement each, so the outbox
// trigger signals once). Returns the notification ids: each is the webhook-id of its sends.
import type { Queryable } from '../../src/stores/postgres.js';

export async function seedOutboxBurst(db: Queryable, workspaceId: string, webhookUrl: string, count: number): Promise<string[]> {
  await db.query(`INSERT INTO workspaces (user_id) VALUES ($1) ON CONFLICT DO NOTHING`, [workspaceId]);
  const [event] = await db.query<{ event_id: string }>(
    `INSERT INTO event_definitions (event_id, user_id, agent, event, share_token) VALUES (gen_random_uuid(), $1, 'web-1', 'burst', gen_random_uuid()::text)
     RETURNING event_id`,
    [workspaceId],
  );
  const [policy] = await db.query<{ policy_id: string }>(
    `INSERT INTO policies (policy_id, workspace_id, event_id, title, period, aggregate, condition, threshold, severity)
     VALUES (gen_random_uuid(), $1, $2, 'Burst', 'minute', 'max', 'gt', 500, 'critical') RETURNING policy_id`,
    [workspaceId, event!.event_id],
  );
  await db.query(`INSERT INTO destinations (destination_id, workspace_id, channel, url, scope) VALUES (gen_random_uuid(), $1, 'webhook', $2, 'all')`, [
    workspaceId,
    webhookUrl,
  ]);
  // Resolved alerts: a policy has at most one open alert, and delivery does not look at the status.
  await db.query(
    `INSERT INTO alerts (alert_id, workspace_id, policy_id, event_id, agent, event, title, channel, period, aggregate, condition, threshold,
       severity, value, count, min, max, bucket_start, bucket_end, status, resolved_at)
     SELECT gen_random_uuid(), $1, $2, $3, 'web-1', 'burst', 'Burst', 'default', 'minute', 'max', 'gt', 500,
       'critical', 900 + i, 1, 900 + i, 900 + i, now() - interval '1 minute', now(), 'resolved', now()
     FROM generate_series(1, $4) AS i`,
    [workspaceId, policy!.policy_id, event!.event_id, count],
  );
  const rows = await db.query<{ notification_id: string }>(
    `INSERT INTO alert_notifications (notification_id, workspace_id, alert_id, policy_id, type, alert)
     SELECT gen_random_uuid(), a.workspace_id, a.alert_id, a.policy_id, 'alert.triggered', jsonb_build_object('alert_id', a.alert_id, 'title', a.title)
     FROM alerts a WHERE a.policy_id = $1
     RETURNING notification_id`,
    [policy!.policy_id],
  );
  return rows.map((r) => r.notification_id);
}
