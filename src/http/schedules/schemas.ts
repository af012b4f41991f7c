import { ONCALL_LIMITS as L, OVERRIDE_LAYER } from '../../oncall/model.js';
import { CLOCK_TIME_PATTERN } from '../../time/weekly.js';
import { pageQueryProperties, wholeListQueryProperties } from '../params.js';
import { personResponseSchema, timezoneSchema } from '../people/schemas.js';
import { weeklyWindowProperties } from '../silences/schemas.js';
import { PATTERNS } from '../validation.js';
import { keyProperty } from '../keySchema.js';

const dateTime = { type: 'string', format: 'date-time' } as const;
const uuid = { type: 'string', format: 'uuid' } as const;
const name = { type: 'string', pattern: PATTERNS.notBlank, maxLength: L.name.max } as const;

const rotationSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  description: 'How members take turns.',
  properties: {
    type: {
      type: 'string',
      enum: ['daily', 'weekly', 'hours'],
      description:
        'daily / weekly: turns hand off at the local handoff time every length days / weeks (weekly: on the weekday of start); hours: every length hours from start.',
    },
    length: {
      type: 'integer',
      minimum: 1,
      maximum: L.length.hours,
      default: 1,
      description: `Days, weeks or hours per turn (default 1; at most ${L.length.daily} days, ${L.length.weekly} weeks, ${L.length.hours} hours).`,
    },
    handoff: {
      type: ['string', 'null'],
      pattern: CLOCK_TIME_PATTERN,
      description:
        'HH:MM (00:00–23:59), local time in the schedule’s timezone, daily and weekly rotations only: the same local time on both sides of a DST change. Default: the local time of start. Null for hours.',
    },
  },
} as const;

const restrictionSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['days', 'start', 'end'],
  description: 'Local hours the layer is on call (null: always): each listed weekday from start to end; an end before start runs past midnight.',
  properties: weeklyWindowProperties,
} as const;

const layerSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'start', 'rotation', 'members'],
  properties: {
    name: { ...name, description: `Unique in the schedule; not "${OVERRIDE_LAYER}".` },
    start: { ...dateTime, description: 'The rotation’s anchor: the first member is on call from here; no one before.' },
    rotation: rotationSchema,
    members: {
      type: 'array',
      minItems: L.membersPerLayer.min,
      maxItems: L.membersPerLayer.max,
      items: uuid,
      description: 'People of the workspace (person_id), in turn order.',
    },
    restrict_to: restrictionSchema,
  },
} as const;

const writable = {
  key: keyProperty,
  name,
  timezone: { ...timezoneSchema, description: 'The timezone of handoffs and restrictions, IANA name.' },
  layers: {
    type: 'array',
    minItems: L.layers.min,
    maxItems: L.layers.max,
    items: layerSchema,
    description: 'Layers, lowest first: where several have someone, the later one wins; an override wins over all.',
  },
  notify_handoffs: { type: 'boolean', description: 'Whether a person’s destinations are told when their shift starts (default false).' },
} as const;

export const createScheduleSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'timezone', 'layers'],
  properties: { ...writable, notify_handoffs: { ...writable.notify_handoffs, default: false } },
} as const;

/** Any subset of the fields (layers are replaced whole); read-only fields a client read back are accepted and ignored. */
export const updateScheduleSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...writable, schedule_id: {}, workspace_id: {}, user_id: {}, ical_token: {}, ical_url: {}, created_at: {}, updated_at: {} },
} as const;

export const listSchedulesQuerySchema = { type: 'object', additionalProperties: false, properties: wholeListQueryProperties } as const;

export const scheduleResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['schedule_id', 'key', 'name', 'timezone', 'layers', 'notify_handoffs', 'ical_token', 'ical_url', 'created_at', 'updated_at'],
  properties: {
    schedule_id: uuid,
    ...writable,
    layers: {
      ...writable.layers,
      items: {
        ...layerSchema,
        required: ['name', 'start', 'rotation', 'members', 'restrict_to'],
        properties: { ...layerSchema.properties, rotation: { ...rotationSchema, required: ['type', 'length', 'handoff'] } },
      },
    },
    ical_token: { type: 'string', description: 'The calendar feed’s token; POST …/ical-token replaces it.' },
    ical_url: {
      type: ['string', 'null'],
      description:
        'The calendar feed at PUBLIC_URL; null when PUBLIC_URL is not set (a client then builds /ical/schedules/<schedule_id>.ics?token=<ical_token> on the address it reached the service at).',
    },
    created_at: dateTime,
    updated_at: dateTime,
  },
} as const;

export const createOverrideSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['person_id', 'starts_at', 'ends_at'],
  properties: {
    person_id: { ...uuid, description: 'A person of the workspace, on call from starts_at to ends_at whatever the layers say.' },
    starts_at: dateTime,
    ends_at: { ...dateTime, description: 'Exclusive; after starts_at. Overrides of one schedule may touch but not overlap.' },
  },
} as const;

export const overrideResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['override_id', 'schedule_id', 'person_id', 'starts_at', 'ends_at', 'created_at'],
  properties: { override_id: uuid, schedule_id: uuid, person_id: uuid, starts_at: dateTime, ends_at: dateTime, created_at: dateTime },
} as const;

export const listOverridesQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...pageQueryProperties,
    limit: { ...pageQueryProperties.limit, description: 'At most this many items (default: every override of the schedule).' },
  },
} as const;

export const onCallQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: { at: { ...dateTime, description: 'The instant (default: now).' } },
} as const;

export const onCallResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['at', 'person', 'layer', 'until'],
  properties: {
    at: dateTime,
    person: { anyOf: [personResponseSchema, { type: 'null' }], description: 'Who is on call, or null when no one is.' },
    layer: { type: ['string', 'null'], description: `The layer’s name, "${OVERRIDE_LAYER}", or null when no one is on call.` },
    until: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When this shift ends; with no one on call, when the next shift starts (null: none in the next 90 days).',
    },
  },
} as const;

export const shiftsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['from', 'to'],
  properties: {
    from: { ...dateTime, description: 'Start of the range.' },
    to: { ...dateTime, description: `End of the range (exclusive), at most ${L.shiftRangeDays} days after from.` },
  },
} as const;

export const shiftSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['person_id', 'starts_at', 'ends_at', 'layer'],
  properties: {
    person_id: uuid,
    starts_at: dateTime,
    ends_at: dateTime,
    layer: { type: 'string', description: `The layer’s name, or "${OVERRIDE_LAYER}".` },
  },
} as const;

export const timelineResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['timezone', 'layers', 'overrides', 'final'],
  properties: {
    timezone: { type: 'string', description: 'The schedule’s timezone, in which its handoffs and restrictions are set.' },
    layers: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'shifts'],
        properties: { name: { type: 'string' }, shifts: { type: 'array', items: shiftSchema, description: 'The layer’s shifts as if it were alone.' } },
      },
    },
    overrides: { type: 'array', items: shiftSchema, description: 'The overrides, as shifts of the layer "override".' },
    final: { type: 'array', items: shiftSchema, description: 'The final line (as GET …/shifts).' },
  },
} as const;
