// A policy's evaluation progress in Postgres: evaluated_until and the run state kept with it
// (the pending run, the empty-bucket run, and how far alerts have covered), locked, read and
// written inside the transaction that applies the buckets, so a restart neither loses nor
// repeats a bucket or a run.
import type { RunState } from './alertChanges.js';
import type { Queryable } from '../stores/postgres.js';

export interface Progress {
  readonly policyId: string;
  readonly enabled: boolean;
  /** At the millisecond precision the evaluator reads it with. */
  readonly updatedAt: number;
  readonly evaluatedUntil: number | null;
  readonly state: RunState;
}

/** The run state's columns of a policy row. */
export interface RunStateColumns {
  breach_run: number;
  breach_started_at: Date | null;
  breach_peak: number | null;
  silent_since: Date | null;
  alerted_until: Date | null;
}

/** Selects RunStateColumns from policies `p`. */
export const RUN_STATE_COLUMNS = 'p.breach_run, p.breach_started_at, p.breach_peak, p.silent_since, p.alerted_until';

interface ProgressRow extends RunStateColumns {
  policy_id: string;
  enabled: boolean;
  updated_at: Date;
  evaluated_until: Date | null;
}

const ms = (d: Date | null) => (d === null ? null : d.getTime());

export const runStateOf = (r: RunStateColumns): RunState => ({
  run: r.breach_run,
  runStart: ms(r.breach_started_at),
  runPeak: r.breach_peak,
  silentSince: ms(r.silent_since),
  alertedUntil: ms(r.alerted_until),
});

/** Locks the policies, in id order (two overlapping workers then lock in the same order), and reads their progress. */
export async function lockProgress(tx: Queryable, policyIds: readonly string[]): Promise<Map<string, Progress>> {
  const rows = await tx.query<ProgressRow>(
    `SELECT p.policy_id, p.enabled, date_trunc('milliseconds', p.updated_at) AS updated_at, p.evaluated_until, ${RUN_STATE_COLUMNS}
     FROM policies AS p WHERE p.policy_id = ANY($1::uuid[]) ORDER BY p.policy_id FOR UPDATE`,
    [policyIds],
  );
  return new Map(
    rows.map((r) => [
      r.policy_id,
      {
        policyId: r.policy_id,
        enabled: r.enabled,
        updatedAt: r.updated_at.getTime(),
        evaluatedUntil: ms(r.evaluated_until),
        state: runStateOf(r),
      },
    ]),
  );
}

export interface ProgressWrite {
  readonly policyId: string;
  /** The new evaluated_until and run state; null = a manual evaluation, which moves neither. */
  readonly evaluatedUntil: number | null;
  readonly state: RunState;
  /**
   * The run state the row holds, locked or at rowVersion: where the new state is the same
   * (most policies, most cycles) only evaluated_until is written.
   */
  readonly heldState: RunState;
  /** The evaluated_until the row holds (ms), likewise: a write that would leave the row as it is is not made. */
  readonly heldUntil: number | null;
  /**
   * For a row not locked: write it only if it is still this version (TargetSnapshot.rowVersion,
   * its xmin, which every write to the row changes: an edit, a disable, another worker's
   * progress, a manual evaluation's alert); a row changed meanwhile is left to the next
   * evaluation, as lockProgress's callers leave a policy no longer as they read it.
   */
  readonly rowVersion?: string;
}

const date = (t: number | null) => (t === null ? null : new Date(t));
const WRITES_PER_STATEMENT = 10_000;

const sameRunState = (a: RunState, b: RunState) =>
  a.run === b.run && a.runStart === b.runStart && a.runPeak === b.runPeak && a.silentSince === b.silentSince && a.alertedUntil === b.alertedUntil;

/** A write that moves evaluated_until alone: the run state stays as the row holds it. */
const movesUntilOnly = (w: ProgressWrite) => w.evaluatedUntil !== null && sameRunState(w.state, w.heldState);

/**
 * A write of what the row holds already: no bucket closed and the run state as it was (a
 * manual evaluation writes alerted_until alone). An open bucket that breaches again every
 * cycle, under the alert it raised early or short of a pending run, is judged so; rewriting
 * the row changed nothing but its version (5,000 rows a cycle at 100,000 policies in
 * bench:evaluate, when nothing had closed).
 */
const leavesRow = (w: ProgressWrite) =>
  w.evaluatedUntil === null ? w.state.alertedUntil === w.heldState.alertedUntil : w.evaluatedUntil === w.heldUntil && sameRunState(w.state, w.heldState);

// Both are written only where the row is still the version read (when one is given). The
// join alone is planned as a hash join over a scan of the whole table (in-memory index
// lookups cost the planner more than they do), 53 against 15 ms per 1,000 of 60,000
// policies: the same ids as an index condition make it read only these rows.
const WRITE_UNTIL = `
  UPDATE policies AS p SET evaluated_until = u.until
  FROM unnest($1::uuid[], $2::timestamptz[], $3::xid[]) AS u(policy_id, until, row_version)
  WHERE p.policy_id = u.policy_id AND p.policy_id = ANY($1::uuid[]) AND (u.row_version IS NULL OR p.xmin = u.row_version)
  RETURNING p.policy_id, p.xmin::text AS row_version`;
const WRITE_PROGRESS = `
  UPDATE policies AS p SET
    evaluated_until = CASE WHEN u.moves THEN u.until ELSE p.evaluated_until END,
    breach_run = CASE WHEN u.moves THEN u.run ELSE p.breach_run END,
    breach_started_at = CASE WHEN u.moves THEN u.run_start ELSE p.breach_started_at END,
    breach_peak = CASE WHEN u.moves THEN u.run_peak ELSE p.breach_peak END,
    silent_since = CASE WHEN u.moves THEN u.silent_since ELSE p.silent_since END,
    alerted_until = u.alerted_until
  FROM unnest($1::uuid[], $2::boolean[], $3::timestamptz[], $4::int[], $5::timestamptz[], $6::float8[], $7::timestamptz[], $8::timestamptz[], $9::xid[])
    AS u(policy_id, moves, until, run, run_start, run_peak, silent_since, alerted_until, row_version)
  WHERE p.policy_id = u.policy_id AND p.policy_id = ANY($1::uuid[]) AND (u.row_version IS NULL OR p.xmin = u.row_version)
  RETURNING p.policy_id, p.xmin::text AS row_version`;

/**
 * Writes the progress of policies, locked or with their row version, in statements of
 * 10,000; returns the ids written, each with its row's new version (targetCache.ts keeps it).
 * A write that moves evaluated_until alone (the run state as held) sets that column only:
 * 60,000 such rows in 0.37 against 0.56 s, embedded. A write that would leave the row as it
 * is is not made (leavesRow), and its id is not returned.
 */
export async function writeProgress(db: Queryable, writes: readonly ProgressWrite[]): Promise<Map<string, string>> {
  const written = new Map<string, string>();
  const untilOnly: ProgressWrite[] = [];
  const whole: ProgressWrite[] = [];
  for (const w of writes) if (!leavesRow(w)) (movesUntilOnly(w) ? untilOnly : whole).push(w);
  const run = async (sql: string, chunks: readonly ProgressWrite[], params: (chunk: readonly ProgressWrite[]) => unknown[]) => {
    for (let i = 0; i < chunks.length; i += WRITES_PER_STATEMENT) {
      const rows = await db.query<{ policy_id: string; row_version: string }>(sql, params(chunks.slice(i, i + WRITES_PER_STATEMENT)));
      for (const row of rows) written.set(row.policy_id, row.row_version);
    }
  };
  await run(WRITE_UNTIL, untilOnly, (chunk) => [
    chunk.map((w) => w.policyId),
    chunk.map((w) => date(w.evaluatedUntil)),
    chunk.map((w) => w.rowVersion ?? null),
  ]);
  await run(WRITE_PROGRESS, whole, (chunk) => {
    const column = <T>(f: (w: ProgressWrite) => T) => chunk.map(f);
    return [
      column((w) => w.policyId),
      column((w) => w.evaluatedUntil !== null),
      column((w) => date(w.evaluatedUntil)),
      column((w) => w.state.run),
      column((w) => date(w.state.runStart)),
      column((w) => w.state.runPeak),
      column((w) => date(w.state.silentSince)),
      column((w) => date(w.state.alertedUntil)),
      column((w) => w.rowVersion ?? null),
    ];
  });
  return written;
}
