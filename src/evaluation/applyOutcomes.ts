// Writes evaluation results to Postgres: per chunk of policies one short transaction that
// locks the policies and keeps those still as the evaluator read them (so a bucket another
// worker already applied is not applied again, and a policy disabled or edited meanwhile is
// left alone), applies the buckets to their open alerts from the run state kept with each
// policy (alertChanges.ts decides, src/alerts/ locks and writes, in one call), and writes the
// new progress and state. No ClickHouse query runs inside it. A policy whose buckets write no
// alert, as it was read, skips all that (settle): its progress is written after the cycle's
// alerts (SettledProgressWriter), in one statement for thousands, without a lock, each row
// only if it is still the version read.
import { changeOpenAlerts } from '../alerts/operations.js';
import { alertChangesFor, type AlertChanges, type JudgedBucket, type RunState } from './alertChanges.js';
import { sqlState, type PostgresStore } from '../stores/postgres.js';
import { lockProgress, writeProgress, type Progress, type ProgressWrite } from './progress.js';
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
  readonly raised: number;
  readonly resolved: number;
  /** Per policy whose outcome was applied (not changed or disabled meanwhile), the alert its last step created or changed. */
  readonly latest: ReadonlyMap<string, AlertChanges['latest']>;
  /** The progress written and committed where it moved (not a manual evaluation's): what the row now holds. */
  readonly progress: readonly WrittenProgress[];
}

/** A policy's progress as written: its row is now the target read, with this progress, at this version. */
export interface WrittenProgress {
  readonly target: EvaluationTarget;
  readonly evaluatedUntil: number;
  readonly state: RunState;
  /** The row's version (xmin) after the write. */
  readonly rowVersion: string;
}

/** The writes that moved the progress, with the row versions they left. */
function movedProgress(written: readonly { target: EvaluationTarget; write: ProgressWrite }[], versions: ReadonlyMap<string, string>): WrittenProgress[] {
  const moved: WrittenProgress[] = [];
  for (const { target, write } of written) {
    const rowVersion = versions.get(write.policyId);
    if (rowVersion !== undefined && write.evaluatedUntil !== null) moved.push({ target, evaluatedUntil: write.evaluatedUntil, state: write.state, rowVersion });
  }
  return moved;
}

const CHUNK = 1000;
const DEADLOCK_DETECTED = '40P01';

/** Still as the evaluator read it: a manual evaluation needs only that the policy exists. */
export function stillCurrent(
  o: { readonly target: Pick<EvaluationTarget, 'updated_at' | 'evaluated_until'>; readonly evaluatedUntil: number | null },
  p: Progress | undefined,
): p is Progress {
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
      return stillCurrent(o, p) ? [{ outcome: o, held: p, state: o.run ? { ...o.run, alertedUntil: p.state.alertedUntil } : p.state }] : [];
    });
    // Only a policy with a verdict can change its open alert: the others' are not locked.
    const judged = current.filter(({ outcome }) => hasVerdict(outcome));
    const changes = new Map<string, AlertChanges>();
    await changeOpenAlerts(
      tx,
      judged.map(({ outcome }) => outcome.target.policy_id),
      (open) => {
        for (const { outcome, state } of current) {
          changes.set(outcome.target.policy_id, alertChangesFor(outcome.target, state, open.get(outcome.target.policy_id) ?? null, outcome.buckets, now));
        }
        const all = [...changes.values()];
        return { inserts: all.flatMap((c) => c.inserts), updates: all.flatMap((c) => c.updates), notifications: all.flatMap((c) => c.notifications) };
      },
      now,
    );
    const writes = current.map(({ outcome, held }) => ({
      target: outcome.target,
      write: {
        policyId: outcome.target.policy_id,
        evaluatedUntil: outcome.evaluatedUntil,
        state: changes.get(outcome.target.policy_id)!.state,
        heldState: held.state,
        heldUntil: held.evaluatedUntil,
      },
    }));
    const versions = await writeProgress(
      tx,
      writes.map((w) => w.write),
    );
    const notifications = [...changes.values()].flatMap((c) => c.notifications);
    return {
      raised: notifications.filter((n) => n.type === 'alert.triggered').length,
      resolved: notifications.filter((n) => n.type === 'alert.resolved').length,
      latest: new Map([...changes].map(([id, c]) => [id, c.latest])),
      progress: movedProgress(writes, versions),
    };
  });
}

/** A deadlock between overlapping workers rolls a transaction back whole; it is tried again once. */
export async function retriedOnDeadlock<T>(apply: () => Promise<T>): Promise<T> {
  try {
    return await apply();
  } catch (err) {
    if (sqlState(err) !== DEADLOCK_DETECTED) throw err;
    return apply();
  }
}

const applyChunkRetried = (db: PostgresStore, outcomes: readonly PolicyOutcome[], now: Date) => retriedOnDeadlock(() => applyChunk(db, outcomes, now));

/**
 * An outcome whose buckets write no alert as the policy was read (none raised, and no open
 * alert then or no verdict to change it): most policies, most cycles. What it writes is known
 * when it is judged, its new progress, so its judged buckets need not be kept until the write
 * (3.6 million of them in a catch-up cycle of 100,000 policies, most of its heap).
 */
export interface SettledOutcome {
  readonly target: EvaluationTarget;
  readonly evaluatedUntil: number;
  readonly state: RunState;
  /** The closed buckets it judged. */
  readonly closedBuckets: number;
}

/** Whether any of the buckets has a verdict: without one, no bucket changes an alert, open or not (alerts/transitions.ts). */
const hasVerdict = (o: PolicyOutcome) => o.buckets.some((b) => b.verdict !== 'none' || b.openVerdict !== 'none');

/**
 * The outcome settled when its buckets write no alert as the policy was read; the outcome
 * itself otherwise. A policy with an open alert is settled too where no bucket has a verdict
 * (an agent gone silent under a `max` rule, every cycle): its alert stays as it is.
 */
export function settle(o: PolicyOutcome, now: Date): PolicyOutcome | SettledOutcome {
  const { snapshot } = o.target;
  if (o.evaluatedUntil === null || o.run !== null || (snapshot.hasOpenAlert && hasVerdict(o))) return o;
  const changes = alertChangesFor(o.target, snapshot.state, null, o.buckets, now);
  if (changes.inserts.length > 0 || changes.notifications.length > 0) return o;
  return { target: o.target, evaluatedUntil: o.evaluatedUntil, state: changes.state, closedBuckets: closedBucketsOf(o) };
}

export const isSettled = (o: PolicyOutcome | SettledOutcome): o is SettledOutcome => 'closedBuckets' in o;

/** The closed buckets an outcome judged (an early-fired open bucket is judged again once closed). */
export const closedBucketsOf = (o: PolicyOutcome | SettledOutcome): number => (isSettled(o) ? o.closedBuckets : o.buckets.filter((b) => !b.early).length);

/**
 * Progress alone, without locks, for outcomes settle settled: each row written only if it is
 * still the version read (progress.ts). Rows are written in no set order, so against a worker
 * locking some of them in id order Postgres may abort the statement, which then wrote
 * nothing: the next evaluation redoes those policies. Returns the progress written.
 */
async function writeSettledProgress(db: PostgresStore, settled: readonly SettledOutcome[]): Promise<WrittenProgress[]> {
  const writes = settled.map((o) => ({
    target: o.target,
    write: {
      policyId: o.target.policy_id,
      evaluatedUntil: o.evaluatedUntil,
      state: o.state,
      heldState: o.target.snapshot.state,
      heldUntil: o.target.evaluated_until?.getTime() ?? null,
      rowVersion: o.target.snapshot.rowVersion,
    },
  }));
  try {
    const versions = await writeProgress(
      db,
      writes.map((w) => w.write),
    );
    return movedProgress(writes, versions);
  } catch (err) {
    if (sqlState(err) !== DEADLOCK_DETECTED) throw err;
    return [];
  }
}

/** Applies outcomes that settle left as they were (an open alert, an alert to write, a manual evaluation): under lock, a chunk a transaction. */
export async function applyOutcomes(db: PostgresStore, outcomes: readonly PolicyOutcome[], now: Date): Promise<ApplyResult> {
  const total = { raised: 0, resolved: 0, latest: new Map<string, AlertChanges['latest']>() };
  const progress: WrittenProgress[][] = [];
  for (let i = 0; i < outcomes.length; i += CHUNK) {
    const r = await applyChunkRetried(db, outcomes.slice(i, i + CHUNK), now);
    total.raised += r.raised;
    total.resolved += r.resolved;
    for (const [id, alert] of r.latest) total.latest.set(id, alert);
    progress.push(r.progress);
  }
  return { ...total, progress: progress.flat() };
}

/** Settled outcomes written a statement while a read is awaited: about 0.1 s, so the read's period is hardly delayed. */
const SETTLED_BATCH = 5_000;

/**
 * The progress of a cycle's settled outcomes, written after the alerts of the period they were
 * judged in: while the cycle awaits a later period's read, and the rest once every period's
 * alerts are written. So no page waits behind this bookkeeping, and Postgres does it while
 * the cycle would otherwise wait for ClickHouse.
 */
export class SettledProgressWriter {
  private readonly pending: SettledOutcome[] = [];
  /** The closed buckets of the outcomes written. */
  private evaluations = 0;

  constructor(
    private readonly db: PostgresStore,
    private readonly onWritten: (progress: readonly WrittenProgress[]) => void,
  ) {}

  add(outcome: SettledOutcome): void {
    this.pending.push(outcome);
  }

  /** Writes batches until `read` has answered (a batch begun is finished), then returns its answer. */
  async writeUntil<T>(read: Promise<T>): Promise<T> {
    let answered = false;
    const done = () => {
      answered = true;
    };
    read.then(done, done);
    // A read already answered is seen before the first batch.
    await Promise.resolve();
    while (!answered && this.pending.length > 0) await this.write(this.pending.splice(0, SETTLED_BATCH));
    return read;
  }

  /** Writes every outcome still pending (writeProgress splits it into statements); returns the closed buckets of all the outcomes written. */
  async writeAll(): Promise<number> {
    if (this.pending.length > 0) await this.write(this.pending.splice(0));
    return this.evaluations;
  }

  private async write(batch: readonly SettledOutcome[]): Promise<void> {
    const written = await writeSettledProgress(this.db, batch);
    this.onWritten(written);
    const ids = new Set(written.map((w) => w.target.policy_id));
    for (const o of batch) if (ids.has(o.target.policy_id)) this.evaluations += o.closedBuckets;
  }
}
