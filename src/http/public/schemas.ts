import { SHARED_ROLLUP_ITEMS } from '../../events/operations.js';
import { rollupItemSchema } from '../events/schemas.js';

export const shareLinkQuerySchema = {
  type: 'object',
  properties: {
    token: { type: 'string', description: "The event's share_token. Missing or wrong: the same 404 as an unknown event." },
  },
} as const;

const items = (period: keyof typeof SHARED_ROLLUP_ITEMS) =>
  ({
    type: 'array',
    maxItems: SHARED_ROLLUP_ITEMS[period],
    items: rollupItemSchema,
    description: `The newest ${SHARED_ROLLUP_ITEMS[period]} ${period} rollup items, newest first.`,
  }) as const;

export const sharedEventSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['event', 'minute', 'hour', 'day'],
  properties: {
    event: {
      type: 'object',
      additionalProperties: false,
      required: ['event_id', 'agent', 'event', 'title', 'description', 'unit', 'timezone'],
      properties: {
        event_id: { type: 'string', format: 'uuid' },
        agent: { type: 'string' },
        event: { type: 'string' },
        title: { type: ['string', 'null'] },
        description: { type: 'string' },
        unit: { type: 'string' },
        timezone: { type: 'string' },
      },
    },
    minute: items('minute'),
    hour: items('hour'),
    day: items('day'),
  },
} as const;
