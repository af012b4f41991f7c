// What the evaluator needs to know of a policy: its rule, its progress, and the event it
// watches (name and timezone), read together in one query.
import { notFound } from '../errors.js';
import type { EventDefinition } from '../events/model.js';
import type { Policy } from '../policies/model.js';
import type { Queryable } from '../stores/postgres.js';

/** The policy's rule and progress, with the watched event's name and timezone. */
export type EvaluationTarget = Pick<
  Policy,
  | 'policy_id'
  | 'workspace_id'
  | 'event_id'
  | 'title'
  | 'channel'
  | 'period'
  | 'aggregate'
  | 'condition'
  | 'threshold'
  | 'severity'
  | 'pending_buckets'
  | 'recovery_threshold'
  | 'no_data'
  | 'compare_to'
  | 'min_count'
  | 'updated_at'
  | 'evaluated_until'
> &
  Pick<EventDefinition, 'agent' | 'event' | 'timezone'>;

const SELECT_TARGETS = `
  SELECT p.policy_id, p.workspace_id, p.event_id, p.title, p.channel, p.period, p.aggregate, p.condition, p.threshold,
         p.severity, p.pending_buckets, p.recovery_threshold, p.no_data, p.compare_to, p.min_count, p.updated_at,
         p.evaluated_until, e.agent, e.event, e.timezone
  FROM policies AS p JOIN event_definitions AS e ON e.event_id = p.event_id AND e.user_id = p.workspace_id`;

/** Every enabled policy of every workspace, or of these events only. */
export function loadEnabledTargets(db: Queryable, eventIds?: readonly string[]): Promise<EvaluationTarget[]> {
  if (eventIds === undefined) return db.query<EvaluationTarget>(`${SELECT_TARGETS} WHERE p.enabled`);
  return db.query<EvaluationTarget>(`${SELECT_TARGETS} WHERE p.enabled AND p.event_id = ANY($1::uuid[])`, [eventIds]);
}

/** One policy of the workspace, enabled or not. */
export async function loadTarget(db: Queryable, workspaceId: string, policyId: string): Promise<EvaluationTarget> {
  const rows = await db.query<EvaluationTarget>(`${SELECT_TARGETS} WHERE p.workspace_id = $1 AND p.policy_id = $2`, [workspaceId, policyId]);
  if (!rows[0]) throw notFound('policy');
  return rows[0];
}
