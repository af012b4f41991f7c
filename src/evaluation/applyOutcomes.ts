// Writes evaluation results to Postgres: per chunk of policies one short transaction that
// locks the policies (in id order, so two workers cannot deadlock), keeps only those still
// enabled and unchanged since they were read, moves their evaluated_until (compare-and-set:
// a bucket another worker already applied is not applied again), and writes their alert
// changes and outbox rows. No ClickHouse query runs inside it.
import { insertAlerts, lockOpenAlerts, updateAlerts } from '../alerts/alertRows.js';
import { insertNotifications } from '../alerts/outbox.js';
import type { Alert } from '../alerts/representation.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import { alertChangesFor, type EvaluatedBucket } from './alertChanges.js';
import type { EvaluationTarget } from './targets.js';

export interface PolicyOutcome {
  readonly target: EvaluationTarget;
  /** Buckets in order; closed ones first, then possibly an early-fired open one. */
  readonly buckets: readonly EvaluatedBucket[];
  /** New evaluated_until (ms); null = a manual evaluation, which leaves the worker's progress alone. */
  readonly evaluatedUntil: number | null;
}

export interface ApplyResult {
  /** Policies whose outcome was applied (the rest changed or were disabled meanwhile). */
  readonly applied: number;
  readonly raised: number;
  readonly resolved: number;
  /** Per applied policy, the alert its last step created or changed. */
  readonly latest: ReadonlyMap<string, Alert | null>;
}

const CHUNK = 1000;

interface LockedPolicy {
  policy_id: string;
  enabled: boolean;
  updated_at: Date;
  evaluated_until: Date | null;
}

const sameInstant = (a: Date | null, b: Date | null) => (a === null ? b === null : b !== null && a.getTime() === b.getTime());

/** Outcomes whose policy is still as the evaluator read it; a manual evaluation needs only that it exists. */
async function lockUnchanged(tx: Queryable, outcomes: readonly PolicyOutcome[]): Promise<PolicyOutcome[]> {
  const ids = outcomes.map((o) => o.target.policy_id);
  const rows = await tx.query<LockedPolicy>(
    `SELECT policy_id, enabled, updated_at, evaluated_until FROM policies WHERE policy_id = ANY($1::uuid[])
     ORDER BY policy_id FOR UPDATE`,
    [ids],
  );
  const locked = new Map(rows.map((r) => [r.policy_id, r]));
  return outcomes.filter((o) => {
    const row = locked.get(o.target.policy_id);
    if (!row) return false;
    if (o.evaluatedUntil === null) return true;
    return row.enabled && sameInstant(row.updated_at, o.target.updated_at) && sameInstant(row.evaluated_until, o.target.evaluated_until);
  });
}

async function applyChunk(db: PostgresStore, outcomes: readonly PolicyOutcome[], now: Date) {
  return db.transaction(async (tx) => {
    const current = await lockUnchanged(tx, outcomes);
    const moves = current.filter((o) => o.evaluatedUntil !== null && o.evaluatedUntil !== o.target.evaluated_until?.getTime());
    if (moves.length > 0) {
      await tx.query(
        `UPDATE policies AS p SET evaluated_until = u.until
         FROM unnest($1::uuid[], $2::timestamptz[]) AS u(policy_id, until) WHERE p.policy_id = u.policy_id`,
        [moves.map((o) => o.target.policy_id), moves.map((o) => new Date(o.evaluatedUntil!))],
      );
    }
    const judged = current.filter((o) => o.buckets.some((b) => b.verdict !== 'none'));
    const open = new Map((await lockOpenAlerts(tx, judged.map((o) => o.target.policy_id))).map((a) => [a.policy_id, a]));
    const inserts: Alert[] = [];
    const updates: Alert[] = [];
    const notifications = [];
    const latest = new Map<string, Alert | null>();
    for (const o of current) {
      const changes = alertChangesFor(o.target, open.get(o.target.policy_id) ?? null, o.buckets, now);
      inserts.push(...changes.inserts);
      updates.push(...changes.updates);
      notifications.push(...changes.notifications);
      latest.set(o.target.policy_id, changes.latest);
    }
    // Resolving an open alert first frees the policy's one open slot for an alert raised after it.
    await updateAlerts(tx, updates);
    await insertAlerts(tx, inserts);
    await insertNotifications(tx, notifications);
    return {
      applied: current.length,
      raised: notifications.filter((n) => n.type === 'alert.triggered').length,
      resolved: notifications.filter((n) => n.type === 'alert.resolved').length,
      latest,
    };
  });
}

export async function applyOutcomes(db: PostgresStore, outcomes: readonly PolicyOutcome[], now: Date): Promise<ApplyResult> {
  const total = { applied: 0, raised: 0, resolved: 0, latest: new Map<string, Alert | null>() };
  for (let i = 0; i < outcomes.length; i += CHUNK) {
    const r = await applyChunk(db, outcomes.slice(i, i + CHUNK), now);
    total.applied += r.applied;
    total.raised += r.raised;
    total.resolved += r.resolved;
    for (const [id, alert] of r.latest) total.latest.set(id, alert);
  }
  return total;
}
