// The delivery history of an alert, or of a test send under its synthetic alert id
// (docs/api.md, Destinations and deliveries). The other /v1.0/alerts routes belong to the alerts router.
import { alertOrTestExists, DELIVERY_KINDS, listAttemptsOfAlert, type AttemptInHistory } from '../../delivery/attempts.js';
import { notFound } from '../../errors.js';
import type { PostgresStore } from '../../stores/postgres.js';
import { pageOf } from '../../page.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { pageQueryProperties } from '../params.js';

const historyQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    kind: { type: 'string', enum: DELIVERY_KINDS, description: 'alert (default): real notifications; test: test sends; all: both.' },
    ...pageQueryProperties,
  },
} as const;

const attemptSchema = {
  type: 'object',
  required: ['attempt_id', 'alert_id', 'destination_id', 'channel', 'target', 'status', 'response_status', 'error_message', 'kind', 'escalation', 'created_at'],
  properties: {
    attempt_id: { type: 'string', format: 'uuid' },
    alert_id: { type: 'string', format: 'uuid' },
    destination_id: { type: 'string', format: 'uuid' },
    notification_id: { type: ['string', 'null'], format: 'uuid', description: 'Sent as Idempotency-Key to webhooks; the same for every retry.' },
    channel: { type: 'string' },
    target: { type: 'string', description: 'Where it went, secrets abbreviated.' },
    status: {
      type: 'string',
      enum: ['pending', 'delivered', 'failed', 'exhausted', 'silenced'],
      description: 'failed: a retry follows at next_attempt_at; exhausted: no retry follows; silenced: a silence covered the notification, nothing was sent.',
    },
    response_status: { type: ['integer', 'null'] },
    error_message: { type: ['string', 'null'] },
    kind: { type: 'string', enum: ['alert', 'test'] },
    type: { type: 'string', enum: ['alert.triggered', 'alert.resolved', 'alert.reminder', 'alert.escalated', 'alert.group', 'test'] },
    escalation: {
      type: ['object', 'null'],
      description: 'alert.escalated: the step this attempt sent, step of of, in round round (docs/api.md, Escalation); null for any other type.',
      required: ['step', 'of', 'round'],
      properties: { step: { type: 'integer', minimum: 1 }, of: { type: 'integer', minimum: 1 }, round: { type: 'integer', minimum: 1 } },
    },
    attempt: { type: 'integer', description: 'Try number, 1 to 6.' },
    next_attempt_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const;

export function deliveryAttemptJson(a: AttemptInHistory) {
  return {
    attempt_id: a.attempt_id,
    alert_id: a.alert_id,
    destination_id: a.destination_id,
    notification_id: a.notification_id,
    channel: a.channel,
    target: a.target,
    status: a.status,
    response_status: a.response_status,
    error_message: a.error_message,
    kind: a.kind,
    type: a.type,
    escalation: a.escalation === null ? null : { step: a.escalation.step, of: a.escalation.of, round: a.escalation.round },
    attempt: a.attempt,
    next_attempt_at: a.next_attempt_at === null ? null : a.next_attempt_at.toISOString(),
    created_at: a.created_at.toISOString(),
    updated_at: a.updated_at.toISOString(),
  };
}

export function deliveryHistoryRoutes(postgres: PostgresStore): ApiRouter {
  return new ApiRouter('alerts', '/v1.0/alerts', ['alertID']).add(
    {
      method: 'get',
      path: '/:alertID/deliveries',
      summary: 'Delivery attempts of an alert, newest first',
      description: 'Test sends are hidden unless kind=test or kind=all; read a test send with the alert_id the test returned.',
      query: historyQuerySchema,
      responses: {
        200: { description: 'Attempts, newest first.', schema: { type: 'array', items: attemptSchema } },
        404: { description: 'No such alert or test send in this workspace.' },
      },
    },
    async (ctx, { query }) => {
      const workspaceId = workspaceOf(ctx);
      const alertId = ctx.params.alertID!;
      const attempts = await listAttemptsOfAlert(postgres, workspaceId, alertId, query.kind ?? 'alert', pageOf(query));
      if (attempts.length === 0 && !(await alertOrTestExists(postgres, workspaceId, alertId))) throw notFound('alert');
      ctx.body = attempts.map(deliveryAttemptJson);
    },
  );
}
