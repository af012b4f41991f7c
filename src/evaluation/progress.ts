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

interface ProgressRow {
  policy_id: string;
  enabled: boolean;
  updated_at: Date;
  evaluated_until: Date | null;
  breach_run: number;
  breach_started_at: Date | null;
  breach_peak: number | null;
  silent_since: Date | null;
  alerted_until: Date | null;
}

const ms = (d: Date | null) => (d === null ? null : d.getTime());

/** Locks the policies, in id order (two overlapping workers then lock in the same order), and reads their progress. */
export async function lockProgress(tx: Queryable, policyIds: readonly string[]): Promise<Map<string, Progress>> {
  const rows = await tx.query<ProgressRow>(
    `SELECT policy_id, enabled, date_trunc('milliseconds', updated_at) AS updated_at, evaluated_until,
            breach_run, breach_started_at, breach_peak, silent_since, alerted_until
     FROM policies WHERE policy_id = ANY($1::uuid[]) ORDER BY policy_id FOR UPDATE`,
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
        state: {
          run: r.breach_run,
          runStart: ms(r.breach_started_at),
          runPeak: r.breach_peak,
          silentSince: ms(r.silent_since),
          alertedUntil: ms(r.alerted_until),
        },
      },
    ]),
  );
}

export interface ProgressWrite {
  readonly policyId: string;
  /** The new evaluated_until and run state; null = a manual evaluation, which moves neither. */
  readonly evaluatedUntil: number | null;
  readonly state: RunState;
}

const date = (t: number | null) => (t === null ? null : new Date(t));

/**
 * Writes the progress of locked policies in one statement. The join alone is planned as a hash
 * join over a scan of the whole table (in-memory index lookups cost the planner more than they
 * do): 53 against 15 ms per 1,000 of 60,000 policies. The same ids as an index condition make
 * it read only these rows.
 */
export async function writeProgress(tx: Queryable, writes: readonly ProgressWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const column = <T>(f: (w: ProgressWrite) => T) => writes.map(f);
  await tx.query(
    `UPDATE policies AS p SET
       evaluated_until = CASE WHEN u.moves THEN u.until ELSE p.evaluated_until END,
       breach_run = CASE WHEN u.moves THEN u.run ELSE p.breach_run END,
       breach_started_at = CASE WHEN u.moves THEN u.run_start ELSE p.breach_started_at END,
       breach_peak = CASE WHEN u.moves THEN u.run_peak ELSE p.breach_peak END,
       silent_since = CASE WHEN u.moves THEN u.silent_since ELSE p.silent_since END,
       alerted_until = u.alerted_until
     FROM unnest($1::uuid[], $2::boolean[], $3::timestamptz[], $4::int[], $5::timestamptz[], $6::float8[], $7::timestamptz[], $8::timestamptz[])
       AS u(policy_id, moves, until, run, run_start, run_peak, silent_since, alerted_until)
     WHERE p.policy_id = u.policy_id AND p.policy_id = ANY($1::uuid[])`,
    [
      column((w) => w.policyId),
      column((w) => w.evaluatedUntil !== null),
      column((w) => date(w.evaluatedUntil)),
      column((w) => w.state.run),
      column((w) => date(w.state.runStart)),
      column((w) => w.state.runPeak),
      column((w) => date(w.state.silentSince)),
      column((w) => date(w.state.alertedUntil)),
    ],
  );
}
