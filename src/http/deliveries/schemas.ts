// JSON Schemas of the delivery history's query and of an attempt in it.
import { DELIVERY_KINDS } from '../../delivery/attempts.js';
import { pageQueryProperties } from '../params.js';

export const historyQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    kind: {
      type: 'string',
      enum: DELIVERY_KINDS,
      description: 'alert (default): alert notifications; test: test sends; handoff: a handoff notice (read it under its handoff_id); all: every kind.',
    },
    ...pageQueryProperties,
  },
} as const;

export const attemptSchema = {
  type: 'object',
  required: ['attempt_id', 'alert_id', 'destination_id', 'channel', 'target', 'status', 'response_status', 'error_message', 'kind', 'escalation', 'created_at'],
  properties: {
    attempt_id: { type: 'string', format: 'uuid' },
    alert_id: { type: 'string', format: 'uuid' },
    destination_id: { type: ['string', 'null'], format: 'uuid', description: 'null for no_one_on_call: no destination was tried.' },
    notification_id: { type: ['string', 'null'], format: 'uuid', description: 'Sent as Idempotency-Key to webhooks; the same for every retry.' },
    channel: { type: 'string' },
    target: { type: 'string', description: 'Where it went, secrets abbreviated.' },
    status: {
      type: 'string',
      enum: ['pending', 'delivered', 'failed', 'exhausted', 'silenced', 'interrupted', 'no_one_on_call', 'inhibited'],
      description:
        'failed: a retry follows at next_attempt_at; exhausted: no retry follows; silenced: a silence covered the notification, nothing was sent; interrupted: the process stopped during the send, which was sent again as the next attempt (same Idempotency-Key); no_one_on_call: an escalation step found no one on call in a schedule it names (target names it), nothing was sent and the chain went on; inhibited: an inhibition rule of the alert’s source covered it, nothing was sent.',
    },
    response_status: { type: ['integer', 'null'] },
    error_message: { type: ['string', 'null'] },
    kind: { type: 'string', enum: ['alert', 'test', 'handoff'] },
    type: { type: 'string', enum: ['alert.triggered', 'alert.resolved', 'alert.reminder', 'alert.escalated', 'alert.group', 'schedule.handoff', 'test'] },
    escalation: {
      type: ['object', 'null'],
      description:
        'alert.escalated: the step this attempt sent, step of of, in round round (docs/api.md, Escalation); null for any other type. on_call (a step naming schedules or people): whom it paged, resolved when it fired.',
      required: ['step', 'of', 'round'],
      properties: {
        step: { type: 'integer', minimum: 1 },
        of: { type: 'integer', minimum: 1 },
        round: { type: 'integer', minimum: 1 },
        on_call: {
          type: 'array',
          description: 'Each schedule the step names with the person on call then (person_id null: no one), then each person it names (schedule_id null).',
          items: {
            type: 'object',
            required: ['schedule_id', 'person_id'],
            properties: { schedule_id: { type: ['string', 'null'], format: 'uuid' }, person_id: { type: ['string', 'null'], format: 'uuid' } },
          },
        },
      },
    },
    attempt: { type: 'integer', description: 'Try number, 1 to 6.' },
    next_attempt_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const;
