import { PERIODS } from '../../rollups/model.js';
import { pageQueryProperties, wholeListQueryProperties } from '../params.js';
import { PATTERNS } from '../validation.js';

const editable = {
  agent: { type: ['string', 'null'], maxLength: 200, description: 'Blank or null: "default".' },
  title: { type: ['string', 'null'], maxLength: 200 },
  description: { type: 'string', maxLength: 2000 },
  unit: { type: 'string', maxLength: 50 },
  timezone: { type: 'string', minLength: 1, maxLength: 64, description: 'IANA name (default UTC); days are local days of this zone.' },
  public: { type: 'boolean' },
} as const;

export const createEventSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['event'],
  properties: {
    event: { type: 'string', pattern: PATTERNS.notBlank, maxLength: 200 },
    ...editable,
    timezone: { ...editable.timezone, default: 'UTC' },
    public: { ...editable.public, default: false },
  },
} as const;

/** The create shape; read-only fields a client read back are accepted and ignored. */
export const updateEventSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    event: { type: 'string', description: 'Only the current name: an event is never renamed.' },
    ...editable,
    event_id: {},
    user_id: {},
    share_token: {},
    share_url: {},
    created_at: {},
    updated_at: {},
  },
} as const;

export const listEventsQuerySchema = {
  type: 'object',
  properties: wholeListQueryProperties,
} as const;

export const rollupQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    period: { type: 'string', enum: PERIODS, default: 'minute', description: 'The bucket size (default minute: the SDKs treat period as optional).' },
    ...pageQueryProperties,
    from: { type: 'string', format: 'date-time', description: 'Buckets starting at or after this instant.' },
    to: { type: 'string', format: 'date-time', description: 'Buckets starting before this instant.' },
  },
} as const;

const timestamp = { type: 'string', format: 'date-time' } as const;

export const eventDefinitionSchema = {
  type: 'object',
  required: [
    'event_id',
    'user_id',
    'event',
    'agent',
    'title',
    'description',
    'unit',
    'timezone',
    'public',
    'share_token',
    'share_url',
    'created_at',
    'updated_at',
  ],
  properties: {
    event_id: { type: 'string', format: 'uuid' },
    user_id: { type: 'string', description: 'The workspace.' },
    event: { type: 'string' },
    agent: { type: 'string' },
    title: { type: ['string', 'null'] },
    description: { type: 'string' },
    unit: { type: 'string' },
    timezone: { type: 'string' },
    public: { type: 'boolean' },
    share_token: { type: 'string' },
    share_url: {
      type: ['string', 'null'],
      description:
        'The share page at PUBLIC_URL, while the event is public; null when it is not, or when PUBLIC_URL is not set (a client then builds /share/events/<event_id>?token=<share_token> on the address it reached the service at).',
    },
    created_at: timestamp,
    updated_at: timestamp,
  },
} as const;

export const rollupItemSchema = {
  type: 'object',
  required: ['event_id', 'agent', 'event', 'period', 'occurred_at', 'count', 'value', 'squares', 'min', 'max'],
  properties: {
    event_id: { type: 'string', format: 'uuid' },
    agent: { type: 'string' },
    event: { type: 'string' },
    period: { type: 'string', enum: PERIODS },
    occurred_at: { ...timestamp, description: 'Start of the bucket; for days, local midnight of the event timezone.' },
    count: { type: 'number' },
    value: { type: 'number', description: 'Sum of the values.' },
    squares: { type: 'number', description: 'Sum of the squared values.' },
    min: { type: 'number' },
    max: { type: 'number' },
  },
} as const;
