// What a policy is: a monitor rule over one event definition (docs/api.md, Policies and evaluation).
import type { Period } from '../rollups/model.js';

export const AGGREGATES = ['sum', 'count', 'average', 'min', 'max', 'p95_est', 'p99_est'] as const;
export const CONDITIONS = ['gt', 'lt', 'eq', 'gte', 'lte'] as const;
export const SEVERITIES = ['info', 'warning', 'error', 'critical'] as const;

export type Aggregate = (typeof AGGREGATES)[number];
export type Condition = (typeof CONDITIONS)[number];
export type Severity = (typeof SEVERITIES)[number];

export interface Policy {
  policy_id: string;
  workspace_id: string;
  event_id: string;
  title: string;
  description: string;
  channel: string;
  period: Period;
  aggregate: Aggregate;
  condition: Condition;
  threshold: number;
  severity: Severity;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
  /** Closed buckets are evaluated up to here; null until a worker first sees the policy. */
  evaluated_until: Date | null;
}

/** The fields a client sets; the rest is the service's. */
export type PolicyFields = Pick<
  Policy,
  'event_id' | 'title' | 'description' | 'channel' | 'period' | 'aggregate' | 'condition' | 'threshold' | 'severity' | 'enabled'
>;

export const POLICY_FIELDS: readonly (keyof PolicyFields)[] = [
  'event_id',
  'title',
  'description',
  'channel',
  'period',
  'aggregate',
  'condition',
  'threshold',
  'severity',
  'enabled',
];

/** A policy as the API shows it: timestamps as ISO 8601 UTC with milliseconds. */
export function policyJson(p: Policy) {
  return {
    policy_id: p.policy_id,
    event_id: p.event_id,
    title: p.title,
    description: p.description,
    channel: p.channel,
    period: p.period,
    aggregate: p.aggregate,
    condition: p.condition,
    threshold: p.threshold,
    severity: p.severity,
    enabled: p.enabled,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
  };
}
