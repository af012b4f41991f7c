import { PATTERNS } from '../validation.js';
import { pageQueryProperties } from '../params.js';
import { PERIODS } from '../../analytics/rollups.js';

const editable = {
  agent: { type: ['string', 'null'], maxLength: 200 },
  title: { type: ['string', 'null'], maxLength: 200 },
  description: { type: 'string', maxLength: 2000 },
  unit: { type: 'string', maxLength: 50 },
  timezone: { type: 'string', minLength: 1, maxLength: 64 },
  public: { type: 'boolean' },
} as const;

export interface CreateEventBody {
  event: string;
  agent?: string | null;
  title?: string | null;
  description?: string;
  unit?: string;
  timezone?: string;
  public?: boolean;
}

export const createEventSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['event'],
  properties: {
    event: { type: 'string', pattern: PATTERNS.notBlank, maxLength: 200 },
    ...editable,
  },
} as const;

export type UpdateEventBody = Partial<CreateEventBody>;

/** The create shape; read-only fields a client read back are accepted and ignored. */
export const updateEventSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    event: { type: 'string' },
    ...editable,
    event_id: {},
    user_id: {},
    share_token: {},
    created_at: {},
    updated_at: {},
  },
} as const;

export interface RollupQuery {
  period: (typeof PERIODS)[number];
  limit?: number;
  offset?: number;
  from?: string;
  to?: string;
}

export const rollupQuerySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['period'],
  properties: {
    period: { type: 'string', enum: PERIODS },
    ...pageQueryProperties,
    from: { type: 'string', format: 'date-time' },
    to: { type: 'string', format: 'date-time' },
  },
} as const;
