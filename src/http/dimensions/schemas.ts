import { DIMENSION_KEY_PATTERN, MAX_DIMENSION_KEYS } from '../../dimensions/model.js';
import { wholeListQueryProperties } from '../params.js';

const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;

/** The keys as the body names them; the domain checks them again (names, duplicates) with its own messages. */
export const putDimensionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['keys'],
  properties: {
    keys: {
      type: 'array',
      maxItems: MAX_DIMENSION_KEYS,
      items: { type: 'string', maxLength: 64 },
      description: `0–${MAX_DIMENSION_KEYS} distinct top-level meta keys (pattern ${DIMENSION_KEY_PATTERN}; not "agent", which every series has).`,
    },
    // Read-only fields a client read back are ignored.
    event: {},
    overflowing: {},
    created_at: {},
    updated_at: {},
    backfill: {},
  },
} as const;

export const listDimensionsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: wholeListQueryProperties,
} as const;

export const dimensionResponseSchema = {
  type: 'object',
  required: ['event', 'keys', 'overflowing', 'created_at', 'updated_at', 'backfill'],
  properties: {
    event: { type: 'string', description: 'The records’ event name.' },
    keys: { type: 'array', items: { type: 'string' } },
    overflowing: {
      type: 'boolean',
      description: 'True while records of new series have been counted in overflow series within the last 24 hours (DIMENSION_MAX_SERIES reached).',
    },
    created_at: dateTime,
    updated_at: dateTime,
    backfill: {
      type: 'object',
      required: ['status', 'from', 'to'],
      description: 'The rebuild of the series rollups from the raw logs kept, started by the last PUT.',
      properties: { status: { type: 'string', enum: ['running', 'done'] }, from: nullableDateTime, to: nullableDateTime },
    },
  },
} as const;
