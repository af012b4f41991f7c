import { AGGREGATES, CONDITIONS, SEVERITIES } from '../../policies/model.js';
import { PERIODS } from '../../rollups/model.js';
import { pageQueryProperties } from '../params.js';
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
} as const;

export const createPolicySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['event_id', 'title', 'period', 'aggregate', 'condition', 'threshold', 'severity'],
  properties: fields,
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
  properties: pageQueryProperties,
} as const;

export const evaluateBodySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    at: { type: 'string', format: 'date-time', description: 'Evaluate the last bucket closed before this instant (default: now).' },
  },
} as const;

const timestamp = { type: 'string', format: 'date-time' } as const;

export const policyResponseSchema = {
  type: 'object',
  required: ['policy_id', ...createPolicySchema.required, 'description', 'channel', 'enabled', 'created_at', 'updated_at'],
  properties: {
    policy_id: { type: 'string', format: 'uuid' },
    ...fields,
    created_at: timestamp,
    updated_at: timestamp,
  },
} as const;
