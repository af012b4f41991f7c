// What a policy is: a monitor rule over one event definition, or over a records' event name
// across a fleet of agents, judged per group (docs/api.md, Policies and evaluation; Fleet policies).
import type { Period } from '../rollups/model.js';

export const AGGREGATES = ['sum', 'count', 'average', 'min', 'max', 'p95_est', 'p99_est'] as const;
export const CONDITIONS = ['gt', 'lt', 'eq', 'gte', 'lte'] as const;
export const SEVERITIES = ['info', 'warning', 'error', 'critical'] as const;
/** What an empty bucket means for the aggregates that have no value without logs. */
export const NO_DATA = ['no_verdict', 'breach', 'ok'] as const;
/** The bucket a comparison policy compares with. */
export const COMPARE_TO = ['previous_bucket', 'previous_1d', 'previous_7d'] as const;

export type Aggregate = (typeof AGGREGATES)[number];
export type Condition = (typeof CONDITIONS)[number];
export type Severity = (typeof SEVERITIES)[number];
export type NoData = (typeof NO_DATA)[number];
export type CompareTo = (typeof COMPARE_TO)[number];

/** Bounds of the integer options, for the API schema and the checks alike. */
export const LIMITS = {
  pendingBuckets: { min: 1, max: 100 },
  minCount: { min: 0, max: 1_000_000_000 },
  renotifyMinutes: { min: 1, max: 10_080 },
} as const;

/** A fleet policy's filter: each key's accepted values (a string is one value). */
export type GroupFilter = Readonly<Record<string, string | readonly string[]>>;

export interface Policy {
  policy_id: string;
  workspace_id: string;
  /** Its key in an alerting-as-code document (docs/as-code.md): unique per workspace and kind; null: none yet. */
  key: string | null;
  /** The event definition watched; null for a fleet policy (exactly one of event_id and event). */
  event_id: string | null;
  /** A fleet policy's records' event name, across the agents that send it; null for a policy on one definition. */
  event: string | null;
  /** A fleet policy's agent patterns (`*` matches any run of characters). */
  agents: readonly string[];
  filter: GroupFilter;
  /** The label names a fleet policy's groups are told apart by; [] = the fleet as one group. */
  group_by: readonly string[];
  /** A fleet policy's day buckets and day comparisons; null for a policy on one definition (its definition's timezone). */
  timezone: string | null;
  title: string;
  description: string;
  channel: string;
  period: Period;
  aggregate: Aggregate;
  condition: Condition;
  threshold: number;
  severity: Severity;
  enabled: boolean;
  /** Consecutive breaching buckets needed to raise an alert. */
  pending_buckets: number;
  /** Hysteresis: an open alert resolves only on a value that fails the condition against this. */
  recovery_threshold: number | null;
  no_data: NoData;
  /** With it, the value compared is the percentage change from the comparison bucket. */
  compare_to: CompareTo | null;
  /** A bucket (or comparison bucket) with fewer logs gives no verdict. */
  min_count: number;
  /** Reminder interval while an alert stays triggered; null = no reminders. */
  renotify_minutes: number | null;
  /** The escalation policy paging further while an alert stays triggered; null = none. */
  escalation_policy_id: string | null;
  created_at: Date;
  updated_at: Date;
  /** Closed buckets are evaluated up to here; null until a worker first sees the policy. */
  evaluated_until: Date | null;
}

/** The fields a client sets; the rest is the service's. */
export type PolicyFields = Pick<
  Policy,
  | 'event_id'
  | 'event'
  | 'agents'
  | 'filter'
  | 'group_by'
  | 'timezone'
  | 'title'
  | 'description'
  | 'channel'
  | 'period'
  | 'aggregate'
  | 'condition'
  | 'threshold'
  | 'severity'
  | 'enabled'
  | 'pending_buckets'
  | 'recovery_threshold'
  | 'no_data'
  | 'compare_to'
  | 'min_count'
  | 'renotify_minutes'
  | 'escalation_policy_id'
>;

export const POLICY_FIELDS: readonly (keyof PolicyFields)[] = [
  'event_id',
  'event',
  'agents',
  'filter',
  'group_by',
  'timezone',
  'title',
  'description',
  'channel',
  'period',
  'aggregate',
  'condition',
  'threshold',
  'severity',
  'enabled',
  'pending_buckets',
  'recovery_threshold',
  'no_data',
  'compare_to',
  'min_count',
  'renotify_minutes',
  'escalation_policy_id',
];

/** The fields a create may leave out, with what they then are: every default keeps the plain threshold rule. */
export const POLICY_DEFAULTS = {
  event_id: null,
  event: null,
  agents: ['*'],
  filter: {},
  group_by: [],
  timezone: null,
  description: '',
  severity: 'warning' as Severity,
  channel: 'default',
  enabled: true,
  pending_buckets: 1,
  recovery_threshold: null,
  no_data: 'no_verdict',
  compare_to: null,
  min_count: 0,
  renotify_minutes: null,
  escalation_policy_id: null,
} as const satisfies Partial<Record<keyof PolicyFields, unknown>>;

/** Fields that change what a bucket's verdict is: a pending run counted under the old rule ends when one changes. */
export const VERDICT_FIELDS: readonly (keyof PolicyFields)[] = ['aggregate', 'condition', 'threshold', 'no_data', 'compare_to', 'min_count'];

/**
 * A policy's rule: what decides its verdicts and its alerts' pending run. The one list of
 * those fields: the checks, the judging, the alert state machine and the backtest take it.
 */
export type PolicyRule = Pick<
  Policy,
  'period' | 'aggregate' | 'condition' | 'threshold' | 'recovery_threshold' | 'no_data' | 'compare_to' | 'min_count' | 'pending_buckets'
>;

/** The fields that change what a fleet policy's groups are: its groups' state restarts when one changes. */
export const GROUPING_FIELDS: readonly (keyof PolicyFields)[] = ['event', 'agents', 'filter', 'group_by', 'timezone'];

/** Bounds of a fleet policy's fields, for the API schema and the checks alike. */
export const FLEET_LIMITS = {
  agentPatterns: 100,
  patternLength: 200,
  filterKeys: 9,
  filterValues: 100,
  valueLength: 1024,
  groupBy: 9,
} as const;

/** The label every series has: its agent. Any other key is a declared dimension of the event name. */
export const AGENT_KEY = 'agent';

export const isFleet = (p: Pick<Policy, 'event'>): boolean => p.event !== null;
