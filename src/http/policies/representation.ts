// Policies and a manual evaluation's verdict as the API shows them.
import { alertJson } from '../../alerts/model.js';
import type { ManualEvaluation } from '../../evaluation/evaluator.js';
import type { FleetManualEvaluation } from '../../evaluation/fleet/fleetEvaluation.js';
import { sortedLabels } from '../../labels/labels.js';
import type { Policy } from '../../policies/model.js';

/** A policy as the API shows it: timestamps as ISO 8601 UTC with milliseconds. */
export function policyJson(p: Policy) {
  return {
    policy_id: p.policy_id,
    key: p.key,
    event_id: p.event_id,
    event: p.event,
    agents: p.agents,
    filter: p.filter,
    group_by: p.group_by,
    timezone: p.timezone,
    title: p.title,
    description: p.description,
    channel: p.channel,
    period: p.period,
    aggregate: p.aggregate,
    condition: p.condition,
    threshold: p.threshold,
    severity: p.severity,
    enabled: p.enabled,
    pending_buckets: p.pending_buckets,
    recovery_threshold: p.recovery_threshold,
    no_data: p.no_data,
    compare_to: p.compare_to,
    min_count: p.min_count,
    renotify_minutes: p.renotify_minutes,
    escalation_policy_id: p.escalation_policy_id,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
  };
}

/** The verdict of POST /v1.0/policies/:id/evaluate: a fleet policy's per group. */
export function manualEvaluationJson(r: ManualEvaluation | FleetManualEvaluation) {
  if (r.kind === 'fleet') {
    return {
      policy_id: r.policy_id,
      bucket_start: new Date(r.bucket.start).toISOString(),
      bucket_end: new Date(r.bucket.end).toISOString(),
      groups: r.groups.map((g) => ({
        labels: sortedLabels(g.labels),
        value: g.value,
        count: g.stats.count,
        min: g.stats.min,
        max: g.stats.max,
        breached: g.breached,
        alert: g.alert && alertJson(g.alert),
      })),
      groups_truncated: r.groupsTruncated,
    };
  }
  return {
    policy_id: r.policy_id,
    bucket_start: new Date(r.bucket.start).toISOString(),
    bucket_end: new Date(r.bucket.end).toISOString(),
    value: r.value,
    count: r.stats.count,
    min: r.stats.min,
    max: r.stats.max,
    breached: r.breached,
    alert: r.alert && alertJson(r.alert),
  };
}
