import { CLOCK_END_PATTERN, CLOCK_TIME_PATTERN, WEEKDAYS } from '../../time/weekly.js';
import { pageQueryProperties } from '../params.js';
import { keyProperty } from '../keySchema.js';

const dateTime = { type: 'string', format: 'date-time' } as const;

/** A weekly local window's weekdays and clock times, as silences' recurrences and schedules' restrictions take them. */
export const weeklyWindowProperties = {
  days: {
    type: 'array',
    minItems: 1,
    maxItems: 7,
    uniqueItems: true,
    items: { type: 'string', enum: WEEKDAYS },
    description: 'Weekdays the window starts on.',
  },
  start: { type: 'string', pattern: CLOCK_TIME_PATTERN, description: 'HH:MM, 00:00–23:59.' },
  end: { type: 'string', pattern: CLOCK_END_PATTERN, description: 'HH:MM, 00:00–24:00; not equal to start.' },
} as const;

const recurrenceSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['timezone', 'days', 'start', 'end'],
  description:
    'A weekly window in local time: on each listed weekday from start to end, between starts_at and ends_at. An end before start runs past midnight; the local wall-clock times hold across DST changes.',
  properties: {
    timezone: { type: 'string', minLength: 1, maxLength: 64, description: 'IANA name, e.g. Europe/Berlin.' },
    ...weeklyWindowProperties,
  },
} as const;

const writable = {
  key: keyProperty,
  policy_ids: {
    type: ['array', 'null'],
    maxItems: 1000,
    items: { type: 'string', format: 'uuid' },
    description: 'The policies and alert sources silenced (each one of the workspace); null (default) silences every one of the workspace.',
  },
  matchers: {
    type: ['array', 'null'],
    maxItems: 20,
    items: { type: 'string', minLength: 1, maxLength: 16_384 },
    description:
      'Alertmanager matchers (docs/api.md, Matchers), all of which must match the alert’s labels (a policy alert’s with alertname, severity, event, policy_id and agent); 1–20 once parsed, not all matching the empty string. Null (default): no condition on labels.',
  },
  starts_at: { ...dateTime, description: 'When the silence begins (default: now).' },
  ends_at: { ...dateTime, description: 'When it ends (exclusive); after starts_at, and in the future on create.' },
  comment: { type: 'string', maxLength: 1000, description: 'Why (default "").' },
  recurrence: recurrenceSchema,
} as const;

export const createSilenceSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['ends_at'],
  properties: writable,
} as const;

/** Any subset of the create fields; read-only fields a client read back are accepted and ignored. */
export const updateSilenceSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...writable, silence_id: {}, workspace_id: {}, user_id: {}, created_by: {}, created_at: {}, updated_at: {}, active: {} },
} as const;

export const listSilencesQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...pageQueryProperties,
    limit: { ...pageQueryProperties.limit, description: 'At most this many items (default: every silence of the workspace).' },
  },
} as const;

export const silenceResponseSchema = {
  type: 'object',
  required: [
    'silence_id',
    'key',
    'policy_ids',
    'matchers',
    'created_by',
    'starts_at',
    'ends_at',
    'comment',
    'recurrence',
    'active',
    'created_at',
    'updated_at',
  ],
  properties: {
    silence_id: { type: 'string', format: 'uuid' },
    key: keyProperty,
    policy_ids: { type: ['array', 'null'], items: { type: 'string', format: 'uuid' } },
    matchers: { type: ['array', 'null'], items: { type: 'string' }, description: 'One matcher per item, as Alertmanager writes it.' },
    created_by: { type: 'string', description: 'Who made it (createdBy of a silence made through the Alertmanager API); "" otherwise.' },
    starts_at: dateTime,
    ends_at: dateTime,
    comment: { type: 'string' },
    recurrence: recurrenceSchema,
    active: { type: 'boolean', description: 'Whether the silence is in force now (inside its span and, if recurring, inside a window).' },
    created_at: dateTime,
    updated_at: dateTime,
  },
} as const;
