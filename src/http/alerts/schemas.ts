import { ALERT_STATUSES } from '../../alerts/model.js';
import { pageQueryProperties } from '../params.js';

export const listAlertsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: ALERT_STATUSES },
    ...pageQueryProperties,
  },
} as const;

/** The lifecycle actions take an empty body ({} is accepted too). */
export const emptyBodySchema = { type: 'object', additionalProperties: false, properties: {} } as const;

const timestamp = { type: 'string', format: 'date-time' } as const;
const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' } as const;
const nullableNumber = { type: ['number', 'null'] } as const;

export const alertResponseSchema = {
  type: 'object',
  required: ['alert_id', 'policy_id', 'event_id', 'status', 'triggered_at'],
  properties: {
    alert_id: { type: 'string', format: 'uuid' },
    policy_id: { type: 'string', format: 'uuid' },
    event_id: { type: 'string', format: 'uuid' },
    agent: { type: 'string' },
    event: { type: 'string' },
    title: { type: 'string' },
    channel: { type: 'string' },
    period: { type: 'string' },
    aggregate: { type: 'string' },
    condition: { type: 'string' },
    threshold: { type: 'number' },
    severity: { type: 'string' },
    value: { ...nullableNumber, description: 'The aggregate of the bucket that raised or last updated the alert.' },
    count: { type: 'integer' },
    min: nullableNumber,
    max: nullableNumber,
    bucket_start: timestamp,
    bucket_end: timestamp,
    status: { type: 'string', enum: ALERT_STATUSES },
    triggered_at: timestamp,
    acknowledged_at: nullableTimestamp,
    resolved_at: nullableTimestamp,
    archived_at: nullableTimestamp,
    alerted_at: { ...nullableTimestamp, description: 'When the first notification was delivered.' },
  },
} as const;
