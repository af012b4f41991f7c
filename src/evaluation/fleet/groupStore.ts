// A fleet policy's kept group states in Postgres (schema/postgres/0056_policy_groups.sql):
// read under the policy row's lock, written in the same transaction as its progress, one
// statement per kind of change however many groups.
import type { Labels } from '../../labels/labels.js';
import type { Queryable } from '../../stores/postgres.js';
import type { RunState } from '../alertChanges.js';
import { runStateOf, type RunStateColumns } from '../progress.js';

export interface GroupWrite {
  readonly policyId: string;
  readonly key: string;
  readonly labels: Labels;
  readonly eventId: string | null;
  readonly state: RunState;
}

/** The kept states of these policies' groups, by policy then group key. */
export async function readGroupStates(tx: Queryable, policyIds: readonly string[]): Promise<Map<string, Map<string, RunState>>> {
  const byPolicy = new Map<string, Map<string, RunState>>(policyIds.map((id) => [id, new Map()]));
  if (policyIds.length === 0) return byPolicy;
  const rows = await tx.query<RunStateColumns & { policy_id: string; group_key: string }>(
    `SELECT policy_id, group_key, breach_run, breach_started_at, breach_peak, silent_since, alerted_until
     FROM policy_groups WHERE policy_id = ANY($1::uuid[])`,
    [policyIds],
  );
  for (const r of rows) byPolicy.get(r.policy_id)?.set(r.group_key, runStateOf(r));
  return byPolicy;
}

const date = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/** Writes these groups' states (new or changed). */
export async function upsertGroupStates(tx: Queryable, writes: readonly GroupWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const rows = writes.map((w) => ({
    policy_id: w.policyId,
    group_key: w.key,
    labels: w.labels,
    event_id: w.eventId,
    breach_run: w.state.run,
    breach_started_at: date(w.state.runStart),
    breach_peak: w.state.runPeak,
    silent_since: date(w.state.silentSince),
    alerted_until: date(w.state.alertedUntil),
  }));
  await tx.query(
    `INSERT INTO policy_groups (policy_id, group_key, labels, event_id, breach_run, breach_started_at, breach_peak, silent_since, alerted_until)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(policy_id uuid, group_key text, labels jsonb, event_id uuid, breach_run integer,
       breach_started_at timestamptz, breach_peak double precision, silent_since timestamptz, alerted_until timestamptz)
     ON CONFLICT (policy_id, group_key) DO UPDATE SET labels = EXCLUDED.labels, event_id = EXCLUDED.event_id,
       breach_run = EXCLUDED.breach_run, breach_started_at = EXCLUDED.breach_started_at, breach_peak = EXCLUDED.breach_peak,
       silent_since = EXCLUDED.silent_since, alerted_until = EXCLUDED.alerted_until`,
    [JSON.stringify(rows)],
  );
}

/** Removes these groups' states: fresh again, or forgotten. */
export async function deleteGroupStates(tx: Queryable, groups: readonly { policyId: string; key: string }[]): Promise<void> {
  if (groups.length === 0) return;
  await tx.query(
    `DELETE FROM policy_groups AS g USING unnest($1::uuid[], $2::text[]) AS d(policy_id, group_key)
     WHERE g.policy_id = d.policy_id AND g.group_key = d.group_key`,
    [groups.map((g) => g.policyId), groups.map((g) => g.key)],
  );
}
