import { AGGREGATES, COMPARE_TO, CONDITIONS, LIMITS, NO_DATA, POLICY_DEFAULTS, SEVERITIES } from '../../policies/model.js';
import { PERIODS } from '../../rollups/model.js';
import { wholeListQueryProperties } from '../params.js';
import { PATTERNS } from '../validation.js';

const fields = {
  event_id: { type: 'string', format: 'uuid', description: 'The event definition the policy watches.' },
  title: { type: 'string', pattern: PATTERNS.notBlank, maxLength: 200 },
  description: { type: 'string', maxLength: 2000 },
  channel: { type: 'string', pattern: PATTERNS.notBlank, maxLength: 100, description: 'A routing label (not a destination channel type).' },
  period: { type: 'string', enum: PERIODS },
  aggregate: { type: 'string', enum: AGGREGATES },
  condition: { type: 'string', enum: CONDITIONS },
  threshold: { type: 'number', description: 'A finite number.' },
  severity: { type: 'string', enum: SEVERITIES },
  enabled: { type: 'boolean' },
  pending_buckets: {
    type: 'integer',
    minimum: LIMITS.pendingBuckets.min,
    maximum: LIMITS.pendingBuckets.max,
    description: 'An alert is raised only when this many consecutive evaluated buckets breach (default 1).',
  },
  recovery_threshold: {
    type: ['number', 'null'],
    description:
      'Hysteresis (default null): an open alert resolves only on a bucket whose value fails the condition against this. On the non-breaching side of threshold; not with eq.',
  },
  no_data: {
    type: 'string',
    enum: NO_DATA,
    description: 'What an empty bucket means for average, min, max, p95_est and p99_est (default no_verdict); count and sum read it as 0.',
  },
  compare_to: {
    type: ['string', 'null'],
    enum: [...COMPARE_TO, null],
    description:
      'Compare the percentage change of the aggregate from this bucket (default null): threshold is then a percentage. previous_1d and previous_7d are the same local clock bucket 1 or 7 local days earlier; previous_1d does not apply to a day period.',
  },
  min_count: {
    type: 'integer',
    minimum: LIMITS.minCount.min,
    maximum: LIMITS.minCount.max,
    description: 'A bucket with fewer logs (and, with compare_to, a comparison bucket with fewer) gives no verdict (default 0).',
  },
  renotify_minutes: {
    type: ['integer', 'null'],
    minimum: LIMITS.renotifyMinutes.min,
    maximum: LIMITS.renotifyMinutes.max,
    description: 'While an alert stays triggered, an alert.reminder notification every this many minutes (default null: none).',
  },
  escalation_policy_id: {
    type: ['string', 'null'],
    format: 'uuid',
    description:
      'An escalation policy of the workspace (404 otherwise): while an alert stays triggered, its steps page their destinations with alert.escalated (default null: none).',
  },
} as const;

export const createPolicySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['event_id', 'title', 'period', 'aggregate', 'condition', 'threshold', 'severity'],
  // The defaults are documented (the console's form starts from them); the route applies them.
  properties: {
    ...fields,
    description: { ...fields.description, default: '' },
    channel: { ...fields.channel, default: 'default' },
    enabled: { ...fields.enabled, default: true },
  },
} as const;

/** Any subset of the fields; read-only fields a client read back are accepted and ignored. */
export const updatePolicySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...fields,
    policy_id: {},
    user_id: {},
    workspace_id: {},
    created_at: {},
    updated_at: {},
  },
} as const;

export const listPoliciesQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: wholeListQueryProperties,
} as const;

export const evaluateBodySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    at: {
      type: 'string',
      format: 'date-time',
      description:
        'Evaluate the last bucket closed before this instant (default: now); at most 30 days back and 1 day ahead (a later instant than now is read as now).',
    },
  },
} as const;

const timestamp = { type: 'string', format: 'date-time' } as const;

const backtestRange = {
  from: { ...timestamp, description: 'Start of the range (default: 7 days before now); at most 30 days back.' },
  to: { ...timestamp, description: 'End of the range (default: now). Buckets that lie wholly in [from, to) and have closed are evaluated.' },
} as const;

export const backtestDraftBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['policy'],
  properties: { policy: { ...createPolicySchema, description: 'A policy as POST /v1.0/policies takes it; it is not stored.' }, ...backtestRange },
} as const;

export const backtestBodySchema = { type: 'object', additionalProperties: false, properties: backtestRange } as const;

export const backtestResponseSchema = {
  type: 'object',
  required: ['from', 'to', 'buckets_evaluated', 'alerts'],
  properties: {
    from: timestamp,
    to: timestamp,
    buckets_evaluated: { type: 'integer' },
    alerts: {
      type: 'array',
      description: 'The alerts the policy would have raised, oldest first.',
      items: {
        type: 'object',
        required: ['first_breach_bucket_start', 'triggered_bucket_start', 'resolved_bucket_start', 'peak_value', 'breaching_buckets'],
        properties: {
          first_breach_bucket_start: { ...timestamp, description: 'The first breaching bucket of the run that raised it.' },
          triggered_bucket_start: { ...timestamp, description: 'The bucket that raised it (the last of its pending run).' },
          resolved_bucket_start: {
            type: ['string', 'null'],
            format: 'date-time',
            description: 'The bucket that resolved it; null while it would still be open.',
          },
          peak_value: { type: ['number', 'null'], description: 'The most extreme value of its breaching buckets, in the direction of the condition.' },
          breaching_buckets: { type: 'integer', description: 'Buckets that breached (or, with a recovery threshold, kept it open), its pending run included.' },
        },
      },
    },
  },
} as const;

export const policyResponseSchema = {
  type: 'object',
  required: ['policy_id', ...createPolicySchema.required, ...Object.keys(POLICY_DEFAULTS), 'created_at', 'updated_at'],
  properties: {
    policy_id: { type: 'string', format: 'uuid' },
    ...fields,
    created_at: timestamp,
    updated_at: timestamp,
  },
} as const;
