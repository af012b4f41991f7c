// The delivery history of an alert, or of a test send under its synthetic alert id
// (docs/api.md, Destinations and deliveries). The other /v1.0/alerts routes belong to the alerts router.
import { alertOrTestExists, listAttemptsOfAlert } from '../../delivery/attempts.js';
import { notFound } from '../../errors.js';
import type { PostgresStore } from '../../stores/postgres.js';
import { pageOf } from '../../page.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { deliveryAttemptJson } from './representation.js';
import { attemptSchema, historyQuerySchema } from './schemas.js';

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
