import { AGGREGATES, COMPARE_TO, CONDITIONS, FLEET_LIMITS, LIMITS, NO_DATA, POLICY_DEFAULTS, SEVERITIES } from '../../policies/model.js';
import { PERIODS } from '../../rollups/model.js';
import { wholeListQueryProperties } from '../params.js';
import { PATTERNS } from '../validation.js';
import { keyProperty } from '../keySchema.js';

/** A label name: `agent`, or a declared dimension key of the event name. */
const labelKey = { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,64}$' } as const;
const labelValue = { type: 'string', maxLength: FLEET_LIMITS.valueLength } as const;

const fields = {
  key: keyProperty,
  event_id: {
    type: ['string', 'null'],
    format: 'uuid',
    description: 'The event definition the policy watches. Exactly one of event_id and event.',
  },
  event: {
    type: ['string', 'null'],
    pattern: PATTERNS.notBlank,
    maxLength: 200,
    description:
      "A fleet policy: the records' event name it watches across the agents that send it (404 when no agent of the workspace has sent it). Exactly one of event_id and event.",
  },
  agents: {
    type: 'array',
    minItems: 1,
    maxItems: FLEET_LIMITS.agentPatterns,
    items: { type: 'string', minLength: 1, maxLength: FLEET_LIMITS.patternLength },
    description: 'A fleet policy: the agents it watches, exact names or patterns where * matches any run of characters (default ["*"]).',
  },
  filter: {
    type: 'object',
    maxProperties: FLEET_LIMITS.filterKeys,
    propertyNames: labelKey,
    additionalProperties: {
      anyOf: [labelValue, { type: 'array', minItems: 1, maxItems: FLEET_LIMITS.filterValues, items: labelValue }],
    },
    description:
      'A fleet policy: {"key": "value" | ["v1", "v2"]} on agent and the declared dimension keys of the event name; a record counts when each key has one of its values (default {}).',
  },
  group_by: {
    type: 'array',
    maxItems: FLEET_LIMITS.groupBy,
    uniqueItems: true,
    items: labelKey,
    description:
      'A fleet policy: the labels (agent, declared dimension keys) each group is told apart by; each group is judged on its own (default []: the fleet as one group).',
  },
  timezone: {
    type: ['string', 'null'],
    maxLength: 64,
    description:
      "A fleet policy: the IANA timezone of its day buckets and day comparisons (default UTC). null for a policy on one definition, which follows the definition's timezone.",
  },
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
  // event_id, or event for a fleet policy; that not both is checked by the domain.
  required: ['title', 'period', 'aggregate', 'condition', 'threshold'],
  if: { properties: { event: { type: 'null' } } },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a promise.
  then: { required: ['event_id'], properties: { event_id: fields.event_id } },
  // The defaults are documented (the console's form starts from them); the route applies them.
  properties: {
    ...fields,
    description: { ...fields.description, default: POLICY_DEFAULTS.description },
    severity: { ...fields.severity, default: POLICY_DEFAULTS.severity },
    channel: { ...fields.channel, default: POLICY_DEFAULTS.channel },
    enabled: { ...fields.enabled, default: POLICY_DEFAULTS.enabled },
    pending_buckets: { ...fields.pending_buckets, default: POLICY_DEFAULTS.pending_buckets },
    recovery_threshold: { ...fields.recovery_threshold, default: POLICY_DEFAULTS.recovery_threshold },
    no_data: { ...fields.no_data, default: POLICY_DEFAULTS.no_data },
    compare_to: { ...fields.compare_to, default: POLICY_DEFAULTS.compare_to },
    min_count: { ...fields.min_count, default: POLICY_DEFAULTS.min_count },
    renotify_minutes: { ...fields.renotify_minutes, default: POLICY_DEFAULTS.renotify_minutes },
    escalation_policy_id: { ...fields.escalation_policy_id, default: POLICY_DEFAULTS.escalation_policy_id },
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
          labels: {
            type: 'object',
            additionalProperties: { type: 'string' },
            description: "A fleet policy's: the group the alert is of, as its alert would be labelled.",
          },
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
  required: ['policy_id', 'key', ...createPolicySchema.required, ...Object.keys(POLICY_DEFAULTS), 'created_at', 'updated_at'],
  properties: {
    policy_id: { type: 'string', format: 'uuid' },
    ...fields,
    created_at: timestamp,
    updated_at: timestamp,
  },
} as const;

const labelsSchema = { type: 'object', maxProperties: 10, additionalProperties: { type: 'string', maxLength: 1024 } } as const;

/** An event definition by its agent and event name, as a configuration document names it. */
export const eventDefinitionRef = {
  type: 'object',
  additionalProperties: false,
  required: ['agent', 'event'],
  properties: { agent: { type: 'string', minLength: 1, maxLength: 200 }, event: { type: 'string', minLength: 1, maxLength: 200 } },
  description: 'The event definition, by its agent and event name (in place of event_id).',
} as const;

/** A policy unit test (docs/as-code.md, Policy unit tests): promtool's expanding notation. */
export const unitTestBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['policy', 'series', 'expect'],
  properties: {
    policy: {
      ...createPolicySchema,
      description:
        'A policy as POST /v1.0/policies takes it; it is not stored. In place of event_id, event_definition may name the definition by its agent and event, as a configuration document does (a file of tests then works in any workspace that has the definition).',
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a promise.
      then: {
        anyOf: [
          { required: ['event_id'], properties: { event_id: fields.event_id } },
          { required: ['event_definition'], properties: { event_definition: eventDefinitionRef } },
        ],
      },
      properties: { ...createPolicySchema.properties, event_definition: eventDefinitionRef },
    },
    series: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      description: 'The records the policy is judged on, and no other.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['agent', 'start', 'interval', 'values'],
        properties: {
          agent: { type: 'string', minLength: 1, maxLength: 200 },
          meta: { ...labelsSchema, description: "A record's meta: a fleet policy's dimensions." },
          start: { ...timestamp, description: 'The first value’s instant.' },
          interval: { type: 'string', pattern: '^\\d{1,6}(s|m|h|d)$', description: 'Between values: 30s, 1m, 1h, 1d.' },
          values: {
            type: 'string',
            maxLength: 100_000,
            description: 'promtool’s expanding notation: "1 2 3 100x5 _x2 7"; a+bxn is n+1 values from a by b, axn is a n+1 times, _ no record, _xn n gaps.',
          },
        },
      },
    },
    expect: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['at', 'alerts'],
        properties: {
          at: { ...timestamp, description: 'The alerts open once every bucket that closed by this instant has been judged.' },
          alerts: {
            type: 'array',
            maxItems: 1000,
            items: {
              type: 'object',
              additionalProperties: false,
              properties: {
                status: { type: 'string', enum: ['triggered'] },
                labels: { ...labelsSchema, description: "A fleet policy's group ({} for a policy on one definition); left out: any." },
                value: { type: ['number', 'null'], description: 'The most extreme value of its breaching buckets; left out: any.' },
              },
            },
          },
        },
      },
    },
  },
} as const;

export const unitTestResponseSchema = {
  type: 'object',
  required: ['passed', 'results'],
  properties: {
    passed: { type: 'boolean' },
    results: {
      type: 'array',
      items: {
        type: 'object',
        required: ['at', 'passed', 'expected', 'got'],
        properties: { at: timestamp, passed: { type: 'boolean' }, expected: { type: 'array' }, got: { type: 'array' } },
      },
    },
  },
} as const;
