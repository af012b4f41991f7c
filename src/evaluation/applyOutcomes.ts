// Writes evaluation results to Postgres: per chunk of policies one short transaction that
// moves each policy's evaluated_until by compare-and-set (so a bucket another worker already
// applied is not applied again, and a policy disabled or edited meanwhile is left alone) and
// has src/alerts/ apply the buckets to their alerts. No ClickHouse query runs inside it.
import type { JudgedBucket } from '../alerts/evaluationChanges.js';
import type { Alert } from '../alerts/model.js';
import { applyEvaluatedBuckets } from '../alerts/operations.js';
import { sqlState, type PostgresStore, type Queryable } from '../stores/postgres.js';
import type { EvaluationTarget } from './targets.js';

export interface PolicyOutcome {
  readonly target: EvaluationTarget;
  /** Buckets in order; closed ones first, then possibly an early-fired open one. */
  readonly buckets: readonly JudgedBucket[];
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
const DEADLOCK_DETECTED = '40P01';

/**
 * Locks the outcomes' policies and keeps those still as the evaluator read them — enabled,
 * not edited, progress not moved by another worker — moving their progress in the same
 * statement (compare-and-set). A manual evaluation needs only that its policy still exists.
 */
async function claimPolicies(tx: Queryable, outcomes: readonly PolicyOutcome[]): Promise<PolicyOutcome[]> {
  const kept = new Set<string>();
  const manual = outcomes.filter((o) => o.evaluatedUntil === null).map((o) => o.target.policy_id);
  if (manual.length > 0) {
    const rows = await tx.query<{ policy_id: string }>('SELECT policy_id FROM policies WHERE policy_id = ANY($1::uuid[]) FOR UPDATE', [manual]);
    for (const r of rows) kept.add(r.policy_id);
  }
  // In id order, so that two overlapping workers lock in the same order as far as the plan follows it.
  const scheduled = outcomes.filter((o) => o.evaluatedUntil !== null).sort((a, b) => (a.target.policy_id < b.target.policy_id ? -1 : 1));
  if (scheduled.length > 0) {
    // updated_at is compared at the millisecond precision the evaluator read it with.
    const rows = await tx.query<{ policy_id: string }>(
      `UPDATE policies AS p SET evaluated_until = u.until
       FROM unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[], $4::timestamptz[]) AS u(policy_id, read_until, read_updated_at, until)
       WHERE p.policy_id = u.policy_id AND p.enabled AND date_trunc('milliseconds', p.updated_at) = u.read_updated_at
         AND p.evaluated_until IS NOT DISTINCT FROM u.read_until
       RETURNING p.policy_id`,
      [
        scheduled.map((o) => o.target.policy_id),
        scheduled.map((o) => o.target.evaluated_until),
        scheduled.map((o) => o.target.updated_at),
        scheduled.map((o) => new Date(o.evaluatedUntil!)),
      ],
    );
    for (const r of rows) kept.add(r.policy_id);
  }
  return outcomes.filter((o) => kept.has(o.target.policy_id));
}

async function applyChunk(db: PostgresStore, outcomes: readonly PolicyOutcome[], now: Date) {
  return db.transaction(async (tx) => {
    const current = await claimPolicies(tx, outcomes);
    const result = await applyEvaluatedBuckets(
      tx,
      current.map((o) => ({ subject: o.target, buckets: o.buckets })),
      now,
    );
    return { applied: current.length, ...result };
  });
}

/** A deadlock between overlapping workers rolls a chunk back whole; it is tried again once. */
async function applyChunkRetried(db: PostgresStore, outcomes: readonly PolicyOutcome[], now: Date) {
  try {
    return await applyChunk(db, outcomes, now);
  } catch (err) {
    if (sqlState(err) !== DEADLOCK_DETECTED) throw err;
    return applyChunk(db, outcomes, now);
  }
}

export async function applyOutcomes(db: PostgresStore, outcomes: readonly PolicyOutcome[], now: Date): Promise<ApplyResult> {
  const total = { applied: 0, raised: 0, resolved: 0, latest: new Map<string, Alert | null>() };
  for (let i = 0; i < outcomes.length; i += CHUNK) {
    const r = await applyChunkRetried(db, outcomes.slice(i, i + CHUNK), now);
    total.applied += r.applied;
    total.raised += r.raised;
    total.resolved += r.resolved;
    for (const [id, alert] of r.latest) total.latest.set(id, alert);
  }
  return total;
}
