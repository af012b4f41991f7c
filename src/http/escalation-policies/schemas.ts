import { ESCALATION_LIMITS as L } from '../../escalation/model.js';
import { wholeListQueryProperties } from '../params.js';
import { PATTERNS } from '../validation.js';
import { keyProperty } from '../keySchema.js';

const dateTime = { type: 'string', format: 'date-time' } as const;

const stepSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['after_minutes'],
  properties: {
    after_minutes: {
      type: 'integer',
      minimum: L.afterMinutes.min,
      maximum: L.afterMinutes.max,
      description: 'Minutes after the alert triggered (step 1) or after the step before, while the alert stays triggered.',
    },
    destination_ids: {
      type: 'array',
      minItems: L.destinationsPerStep.min,
      maxItems: L.destinationsPerStep.max,
      items: { type: 'string', format: 'uuid' },
      description:
        'Destinations of the workspace this step notifies with alert.escalated (whatever their scope). Default []; a step names at least one destination, schedule or person in all.',
    },
    schedule_ids: {
      type: 'array',
      maxItems: L.schedulesPerStep.max,
      items: { type: 'string', format: 'uuid' },
      description:
        'Schedules of the workspace: when the step fires, whoever is on call in each is paged through their destinations (docs/oncall.md). No one on call: an attempt with status no_one_on_call, and the chain goes on. Default [].',
    },
    person_ids: {
      type: 'array',
      maxItems: L.peoplePerStep.max,
      items: { type: 'string', format: 'uuid' },
      description: 'People of the workspace this step pages through their destinations. Default [].',
    },
  },
} as const;

const writable = {
  key: keyProperty,
  name: { type: 'string', pattern: PATTERNS.notBlank, maxLength: L.name.max },
  steps: { type: 'array', minItems: L.steps.min, maxItems: L.steps.max, items: stepSchema, description: 'The steps, in order.' },
  repeat: {
    type: 'integer',
    minimum: L.repeat.min,
    maximum: L.repeat.max,
    description: 'After the last step, the chain starts again from step 1 this many more times (default 0).',
  },
} as const;

export const createEscalationPolicySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'steps'],
  properties: { ...writable, repeat: { ...writable.repeat, default: 0 } },
} as const;

/** Any subset of the fields; read-only fields a client read back are accepted and ignored. */
export const updateEscalationPolicySchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...writable, escalation_policy_id: {}, workspace_id: {}, user_id: {}, created_at: {}, updated_at: {}, policy_ids: {} },
} as const;

export const listEscalationPoliciesQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: wholeListQueryProperties,
} as const;

export const escalationPolicyResponseSchema = {
  type: 'object',
  required: ['escalation_policy_id', 'key', 'name', 'steps', 'repeat', 'policy_ids', 'created_at', 'updated_at'],
  properties: {
    escalation_policy_id: { type: 'string', format: 'uuid' },
    ...writable,
    policy_ids: { type: 'array', items: { type: 'string', format: 'uuid' }, description: 'The policies that name it (read-only).' },
    created_at: dateTime,
    updated_at: dateTime,
  },
} as const;
