// Escalation policies and the chains of alerts in Postgres. Every function on policies takes
// the workspace and filters by it: another workspace's escalation policy is simply not found.
import { newId } from '../ids.js';
import type { PageOrAll } from '../page.js';
import type { Queryable } from '../stores/postgres.js';
import { type EscalationPolicy, type EscalationPolicyFields, type EscalationStep, stepOf } from './model.js';

const COLUMNS = 'escalation_policy_id, workspace_id, key, name, steps, repeat, created_at, updated_at';

/** A policy as read: steps stored before schedules and people get their empty lists. */
const fromRow = (row: EscalationPolicy): EscalationPolicy => ({ ...row, steps: row.steps.map(stepOf) });

/** Locks the workspace row so that concurrent creations count each other; returns how many escalation policies it has. */
export async function lockAndCountEscalationPolicies(db: Queryable, workspaceId: string): Promise<number> {
  await db.query('SELECT 1 FROM workspaces WHERE user_id = $1 FOR UPDATE', [workspaceId]);
  const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM escalation_policies WHERE workspace_id = $1', [workspaceId]);
  return rows[0]?.n ?? 0;
}

/** The ids among `destinationIds` that are not destinations of the workspace. */
export async function unknownDestinationIds(db: Queryable, workspaceId: string, destinationIds: readonly string[]): Promise<Set<string>> {
  if (destinationIds.length === 0) return new Set();
  const rows = await db.query<{ destination_id: string }>(
    'SELECT destination_id FROM destinations WHERE workspace_id = $1 AND destination_id = ANY ($2::uuid[])',
    [workspaceId, [...new Set(destinationIds)]],
  );
  const known = new Set(rows.map((r) => r.destination_id));
  return new Set(destinationIds.filter((id) => !known.has(id)));
}

/** Whether the escalation policy is the workspace's (locked against a concurrent delete until the transaction ends). */
export async function escalationPolicyExists(db: Queryable, workspaceId: string, escalationPolicyId: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM escalation_policies WHERE workspace_id = $1 AND escalation_policy_id = $2 FOR SHARE', [
    workspaceId,
    escalationPolicyId,
  ]);
  return rows.length > 0;
}

export async function insertEscalationPolicy(db: Queryable, workspaceId: string, fields: EscalationPolicyFields): Promise<EscalationPolicy> {
  const rows = await db.query<EscalationPolicy>(
    `INSERT INTO escalation_policies (escalation_policy_id, workspace_id, name, steps, repeat)
     VALUES ($1, $2, $3, $4::jsonb, $5) RETURNING ${COLUMNS}`,
    [newId(), workspaceId, fields.name, JSON.stringify(fields.steps), fields.repeat],
  );
  return fromRow(rows[0]!);
}

export async function findEscalationPolicy(db: Queryable, workspaceId: string, id: string, forUpdate = false): Promise<EscalationPolicy | null> {
  const rows = await db.query<EscalationPolicy>(
    `SELECT ${COLUMNS} FROM escalation_policies WHERE workspace_id = $1 AND escalation_policy_id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [workspaceId, id],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function listEscalationPolicyRows(db: Queryable, workspaceId: string, page: PageOrAll): Promise<EscalationPolicy[]> {
  const rows = await db.query<EscalationPolicy>(
    `SELECT ${COLUMNS} FROM escalation_policies WHERE workspace_id = $1
     ORDER BY created_at DESC, escalation_policy_id DESC LIMIT $2 OFFSET $3`,
    [workspaceId, page.limit, page.offset],
  );
  return rows.map(fromRow);
}

export async function updateEscalationPolicyRow(db: Queryable, workspaceId: string, id: string, fields: EscalationPolicyFields): Promise<EscalationPolicy> {
  const rows = await db.query<EscalationPolicy>(
    `UPDATE escalation_policies SET name = $3, steps = $4::jsonb, repeat = $5, updated_at = now()
     WHERE workspace_id = $1 AND escalation_policy_id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, id, fields.name, JSON.stringify(fields.steps), fields.repeat],
  );
  return fromRow(rows[0]!);
}

/**
 * The escalation policies of the workspace with a step naming the person (person_ids) or the
 * schedule (schedule_ids), oldest first: a jsonb containment test, on the GIN index of migration 0041.
 */
export async function escalationPoliciesNaming(db: Queryable, workspaceId: string, target: { kind: 'person' | 'schedule'; id: string }): Promise<string[]> {
  const probe = JSON.stringify([{ [target.kind === 'person' ? 'person_ids' : 'schedule_ids']: [target.id.toLowerCase()] }]);
  const rows = await db.query<{ escalation_policy_id: string }>(
    `SELECT escalation_policy_id FROM escalation_policies WHERE workspace_id = $1 AND steps @> $2::jsonb
     ORDER BY created_at, escalation_policy_id`,
    [workspaceId, probe],
  );
  return rows.map((r) => r.escalation_policy_id);
}

/** The policies of the workspace that name the escalation policy (their ids, oldest first). */
export async function policiesNaming(db: Queryable, workspaceId: string, id: string): Promise<string[]> {
  const rows = await db.query<{ policy_id: string }>(
    'SELECT policy_id FROM policies WHERE workspace_id = $1 AND escalation_policy_id = $2 ORDER BY created_at, policy_id',
    [workspaceId, id],
  );
  return rows.map((r) => r.policy_id);
}

/** The alert sources of the workspace that name the escalation policy (their ids, oldest first). */
export async function alertSourcesNaming(db: Queryable, workspaceId: string, id: string): Promise<string[]> {
  const rows = await db.query<{ alert_source_id: string }>(
    'SELECT alert_source_id FROM alert_sources WHERE workspace_id = $1 AND escalation_policy_id = $2 ORDER BY created_at, alert_source_id',
    [workspaceId, id],
  );
  return rows.map((r) => r.alert_source_id);
}

/** Every policy of the workspace that names an escalation policy, by escalation policy (the list shows which use each). */
export async function policiesByEscalationPolicy(db: Queryable, workspaceId: string): Promise<Map<string, string[]>> {
  const rows = await db.query<{ escalation_policy_id: string; policy_id: string }>(
    `SELECT escalation_policy_id, policy_id FROM policies WHERE workspace_id = $1 AND escalation_policy_id IS NOT NULL
     ORDER BY created_at, policy_id`,
    [workspaceId],
  );
  const byId = new Map<string, string[]>();
  for (const r of rows) byId.set(r.escalation_policy_id, [...(byId.get(r.escalation_policy_id) ?? []), r.policy_id]);
  return byId;
}

export async function deleteEscalationPolicyRow(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM escalation_policies WHERE workspace_id = $1 AND escalation_policy_id = $2 RETURNING escalation_policy_id', [
    workspaceId,
    id,
  ]);
  return rows.length > 0;
}

/**
 * Starts the chain of every triggered alert whose policy (or alert source) names an escalation policy and that
 * has none yet: step 1 of round 1, due `after_minutes` of step 1 after the alert triggered.
 * Reads alerts and policies, writes only its own table; returns how many chains it started.
 */
export async function startChains(tx: Queryable, minuteMs: number): Promise<number> {
  const rows = await tx.query(
    `INSERT INTO alert_escalations (alert_id, workspace_id, escalation_policy_id, round, step, due_at)
     SELECT a.alert_id, a.workspace_id, e.escalation_policy_id, 1, 1,
            a.triggered_at + (e.steps -> 0 ->> 'after_minutes')::int * $1::bigint * interval '1 millisecond'
     FROM (
       SELECT a.alert_id, a.workspace_id, a.triggered_at, p.escalation_policy_id
       FROM policies p JOIN alerts a ON a.policy_id = p.policy_id AND a.status = 'triggered'
       WHERE p.escalation_policy_id IS NOT NULL
       UNION ALL
       -- A received alert escalates by its alert source's escalation policy.
       SELECT a.alert_id, a.workspace_id, a.triggered_at, s.escalation_policy_id
       FROM alert_sources s JOIN alerts a ON a.alert_source_id = s.alert_source_id AND a.status = 'triggered'
       WHERE s.escalation_policy_id IS NOT NULL
     ) a
     JOIN escalation_policies e ON e.escalation_policy_id = a.escalation_policy_id
     WHERE NOT EXISTS (SELECT 1 FROM alert_escalations x WHERE x.alert_id = a.alert_id)
     ON CONFLICT (alert_id) DO NOTHING
     RETURNING alert_id`,
    [minuteMs],
  );
  return rows.length;
}

/** A chain whose next step is due, with its escalation policy as it is now (null when deleted) and the one its alert's policy (or source) names now. */
export interface DueChain {
  alert_id: string;
  workspace_id: string;
  round: number;
  step: number;
  due_at: Date;
  escalation_policy_id: string;
  steps: EscalationStep[] | null;
  repeat: number | null;
  named_now: string | null;
}

/** Up to `limit` chains due at `now`, locked until the transaction ends (other workers skip them). */
export async function lockDueChains(tx: Queryable, now: Date, limit: number): Promise<DueChain[]> {
  const rows = await tx.query<DueChain>(
    `SELECT c.alert_id, c.workspace_id, c.round, c.step, c.due_at, c.escalation_policy_id, e.steps, e.repeat,
            COALESCE(p.escalation_policy_id, s.escalation_policy_id) AS named_now
     FROM alert_escalations c
     LEFT JOIN escalation_policies e ON e.escalation_policy_id = c.escalation_policy_id
     LEFT JOIN alerts a ON a.alert_id = c.alert_id
     LEFT JOIN policies p ON p.policy_id = a.policy_id
     LEFT JOIN alert_sources s ON s.alert_source_id = a.alert_source_id
     WHERE c.done_at IS NULL AND c.due_at <= $1
     ORDER BY c.due_at LIMIT $2
     FOR UPDATE OF c SKIP LOCKED`,
    [now, limit],
  );
  return rows.map((r) => ({ ...r, steps: r.steps === null ? null : r.steps.map(stepOf) }));
}

/** A chain's next position and when it is due, or (next null) its end. */
export interface ChainAdvance {
  readonly alertId: string;
  readonly next: { readonly round: number; readonly step: number; readonly dueAt: Date } | null;
}

export async function advanceChains(tx: Queryable, advances: readonly ChainAdvance[], now: Date): Promise<void> {
  if (advances.length === 0) return;
  await tx.query(
    `UPDATE alert_escalations c
     SET round = COALESCE(x.round, c.round), step = COALESCE(x.step, c.step), due_at = COALESCE(x.due_at, c.due_at),
         done_at = CASE WHEN x.round IS NULL THEN $5::timestamptz ELSE NULL END
     FROM unnest($1::uuid[], $2::int[], $3::int[], $4::timestamptz[]) AS x(alert_id, round, step, due_at)
     WHERE c.alert_id = x.alert_id`,
    [
      advances.map((a) => a.alertId),
      advances.map((a) => a.next?.round ?? null),
      advances.map((a) => a.next?.step ?? null),
      advances.map((a) => a.next?.dueAt ?? null),
      now,
    ],
  );
}

/** The chain of an alert of the workspace, for its history (null when it has none). */
export async function findChain(db: Queryable, workspaceId: string, alertId: string) {
  const rows = await db.query<{ escalation_policy_id: string; round: number; step: number; due_at: Date; done_at: Date | null }>(
    'SELECT escalation_policy_id, round, step, due_at, done_at FROM alert_escalations WHERE workspace_id = $1 AND alert_id = $2',
    [workspaceId, alertId],
  );
  return rows[0] ?? null;
}
