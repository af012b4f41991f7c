// What the evaluator needs to know of a policy: its rule, its progress, and the event it
// watches (name and timezone), read together in one query, with what of the row lets an
// evaluation that writes no alert have its progress written without a lock (applyOutcomes.ts).
import { notFound } from '../errors.js';
import type { EventDefinition } from '../events/model.js';
import type { Labels } from '../labels/labels.js';
import type { Policy, PolicyRule } from '../policies/model.js';
import type { Queryable } from '../stores/postgres.js';
import type { RunState } from './alertChanges.js';
import { RUN_STATE_COLUMNS, runStateOf, type RunStateColumns } from './progress.js';

/** A policy's identity, what its alerts copy of it, and its progress: the part every kind of target has. */
export type TargetPolicy = Pick<Policy, 'policy_id' | 'workspace_id' | 'title' | 'channel' | 'severity' | 'updated_at' | 'evaluated_until'> & PolicyRule;

/** A policy on one event definition: its rule and progress, with the watched event's name and timezone. */
export type EvaluationTarget = TargetPolicy &
  Pick<EventDefinition, 'event_id' | 'agent' | 'event' | 'timezone'> & {
    /** The labels of its alerts: the watched definition's agent. */
    readonly labels: Labels;
    readonly snapshot: TargetSnapshot;
  };

/** The policy row as the evaluator read it, in the same snapshot as its rule. */
export interface TargetSnapshot {
  /** The row's xmin: every write to the row changes it (progress.ts, ProgressWrite.rowVersion). */
  readonly rowVersion: string;
  /** The event definition's xmin, likewise (its name and timezone are part of the target). */
  readonly eventVersion: string;
  readonly state: RunState;
  /** Whether the policy had an open alert (triggered or acknowledged). */
  readonly hasOpenAlert: boolean;
}

type TargetRow = Omit<EvaluationTarget, 'snapshot' | 'labels'> & RunStateColumns & { row_version: string; event_version: string; has_open_alert: boolean };

/** A policy `p` with the event `e` it watches. */
const POLICY_AND_EVENT = 'policies AS p JOIN event_definitions AS e ON e.event_id = p.event_id AND e.user_id = p.workspace_id';
/** TargetSnapshot's versions, read the same way by the whole read and the versions-only one. */
const VERSION_COLUMNS = 'p.xmin::text AS row_version, e.xmin::text AS event_version';

const SELECT_TARGETS = `
  SELECT p.policy_id, p.workspace_id, p.event_id, p.title, p.channel, p.period, p.aggregate, p.condition, p.threshold,
         p.severity, p.pending_buckets, p.recovery_threshold, p.no_data, p.compare_to, p.min_count, p.updated_at,
         p.evaluated_until, e.agent, e.event, e.timezone, ${VERSION_COLUMNS}, ${RUN_STATE_COLUMNS},
         EXISTS (SELECT 1 FROM alerts AS a WHERE a.policy_id = p.policy_id AND a.status IN ('triggered', 'acknowledged')) AS has_open_alert
  FROM ${POLICY_AND_EVENT}`;

function targetOf(row: TargetRow): EvaluationTarget {
  const { row_version, event_version, has_open_alert, breach_run, breach_started_at, breach_peak, silent_since, alerted_until, ...target } = row;
  const state = runStateOf({ breach_run, breach_started_at, breach_peak, silent_since, alerted_until });
  return {
    ...target,
    labels: { agent: target.agent },
    snapshot: { rowVersion: row_version, eventVersion: event_version, state, hasOpenAlert: has_open_alert },
  };
}

/** Every enabled policy of every workspace, or of these events only. */
export async function loadEnabledTargets(db: Queryable, eventIds?: readonly string[]): Promise<EvaluationTarget[]> {
  const rows =
    eventIds === undefined
      ? await db.query<TargetRow>(`${SELECT_TARGETS} WHERE p.enabled`)
      : await db.query<TargetRow>(`${SELECT_TARGETS} WHERE p.enabled AND p.event_id = ANY($1::uuid[])`, [eventIds]);
  return rows.map(targetOf);
}

/** These policies, where they are still enabled. */
export async function loadEnabledTargetsById(db: Queryable, policyIds: readonly string[]): Promise<EvaluationTarget[]> {
  if (policyIds.length === 0) return [];
  const rows = await db.query<TargetRow>(`${SELECT_TARGETS} WHERE p.enabled AND p.policy_id = ANY($1::uuid[])`, [policyIds]);
  return rows.map(targetOf);
}

/** Each enabled policy's row version and its event's (TargetSnapshot): a read of two numbers a policy. */
export async function loadEnabledTargetVersions(db: Queryable): Promise<{ policy_id: string; row_version: string; event_version: string }[]> {
  return db.query(`SELECT p.policy_id, ${VERSION_COLUMNS} FROM ${POLICY_AND_EVENT} WHERE p.enabled`);
}

/** The policies that have an open alert (triggered or acknowledged). */
export async function policiesWithOpenAlerts(db: Queryable): Promise<Set<string>> {
  const rows = await db.query<{ policy_id: string }>("SELECT policy_id FROM alerts WHERE status IN ('triggered', 'acknowledged')");
  return new Set(rows.map((r) => r.policy_id));
}

/** One policy of the workspace, enabled or not. */
export async function loadTarget(db: Queryable, workspaceId: string, policyId: string): Promise<EvaluationTarget> {
  const rows = await db.query<TargetRow>(`${SELECT_TARGETS} WHERE p.workspace_id = $1 AND p.policy_id = $2`, [workspaceId, policyId]);
  if (!rows[0]) throw notFound('policy');
  return targetOf(rows[0]);
}
