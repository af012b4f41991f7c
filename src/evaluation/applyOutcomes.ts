// Writes evaluation results to Postgres: per chunk of policies one short transaction that
// locks the policies and keeps those still as the evaluator read them (so a bucket another
// worker already applied is not applied again, and a policy disabled or edited meanwhile is
// left alone), has src/alerts/ apply the buckets to their alerts from the run state kept with
// each policy, and writes the new progress and state. No ClickHouse query runs inside it.
import type { JudgedBucket, RunState } from '../alerts/evaluationChanges.js';
import type { Alert } from '../alerts/model.js';
import { applyEvaluatedBuckets } from '../alerts/operations.js';
import { sqlState, type PostgresStore } from '../stores/postgres.js';
import { lockProgress, writeProgress, type Progress } from './progress.js';
import type { EvaluationTarget } from './targets.js';

export interface PolicyOutcome {
  readonly target: EvaluationTarget;
  /** Buckets in order; closed ones first, then possibly an early-fired open one. */
  readonly buckets: readonly JudgedBucket[];
  /** New evaluated_until (ms); null = a manual evaluation, which leaves the worker's progress alone. */
  readonly evaluatedUntil: number | null;
  /**
   * The run the buckets continue, when it is not the one kept with the policy: a manual
   * evaluation counts its own over the buckets before its bucket, and a plan that skipped
   * buckets starts a new one.
   */
  readonly run: Omit<RunState, 'alertedUntil'> | null;
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

/** Still as the evaluator read it: a manual evaluation needs only that the policy exists. */
function stillCurrent(o: PolicyOutcome, p: Progress | undefined): p is Progress {
  if (!p) return false;
  if (o.evaluatedUntil === null) return true;
  return p.enabled && p.updatedAt === o.target.updated_at.getTime() && p.evaluatedUntil === (o.target.evaluated_until?.getTime() ?? null);
}

async function applyChunk(db: PostgresStore, outcomes: readonly PolicyOutcome[], now: Date) {
  return db.transaction(async (tx) => {
    const progress = await lockProgress(
      tx,
      outcomes.map((o) => o.target.policy_id),
    );
    const current = outcomes.flatMap((o) => {
      const p = progress.get(o.target.policy_id);
      return stillCurrent(o, p) ? [{ outcome: o, state: o.run ? { ...o.run, alertedUntil: p.state.alertedUntil } : p.state }] : [];
    });
    const result = await applyEvaluatedBuckets(
      tx,
      current.map(({ outcome, state }) => ({ subject: outcome.target, state, buckets: outcome.buckets })),
      now,
    );
    await writeProgress(
      tx,
      current.map(({ outcome }) => ({
        policyId: outcome.target.policy_id,
        evaluatedUntil: outcome.evaluatedUntil,
        state: result.results.get(outcome.target.policy_id)!.state,
      })),
    );
    const latest = new Map([...result.results].map(([id, r]) => [id, r.latest]));
    return { applied: current.length, raised: result.raised, resolved: result.resolved, latest };
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
