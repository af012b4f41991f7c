import { ONCALL_LIMITS as L } from '../../oncall/model.js';
import { wholeListQueryProperties } from '../params.js';
import { PATTERNS } from '../validation.js';
import { keyProperty } from '../keySchema.js';

const dateTime = { type: 'string', format: 'date-time' } as const;

export const timezoneSchema = { type: 'string', minLength: 1, maxLength: 64, description: 'IANA name, e.g. Europe/Berlin (exact spelling).' } as const;

const writable = {
  key: keyProperty,
  name: { type: 'string', pattern: PATTERNS.notBlank, maxLength: L.name.max, description: 'How the console, the shifts and the calendar feed name them.' },
  timezone: { ...timezoneSchema, description: 'Where they live, IANA name (default UTC): the console shows their shifts in it too.' },
  destination_ids: {
    type: 'array',
    minItems: L.destinationsPerPerson.min,
    maxItems: L.destinationsPerPerson.max,
    items: { type: 'string', format: 'uuid' },
    description: 'The workspace’s destinations that reach this person (paged when they are on call).',
  },
} as const;

export const createPersonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'destination_ids'],
  properties: { ...writable, timezone: { ...writable.timezone, default: 'UTC' } },
} as const;

/** Any subset of the fields; read-only fields a client read back are accepted and ignored. */
export const updatePersonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...writable, person_id: {}, workspace_id: {}, user_id: {}, created_at: {}, updated_at: {} },
} as const;

export const listPeopleQuerySchema = { type: 'object', additionalProperties: false, properties: wholeListQueryProperties } as const;

export const personResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['person_id', 'key', 'name', 'timezone', 'destination_ids', 'created_at', 'updated_at'],
  properties: { person_id: { type: 'string', format: 'uuid' }, ...writable, created_at: dateTime, updated_at: dateTime },
} as const;
