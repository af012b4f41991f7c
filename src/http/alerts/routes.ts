// Alerts (docs/api.md, Alerts). Delivery history (…/deliveries) lives with the
// delivery routes.
import { applyAlertAction, getAlert } from '../../alerts/operations.js';
import { alertJson } from '../../alerts/model.js';
import { PresentedAlertList } from '../../alerts/presentedList.js';
import { ALERT_ACTIONS, TRANSITIONS } from '../../alerts/transitions.js';
import type { PostgresStore } from '../../stores/postgres.js';
import { MAX_WHOLE_ALERT_LIST, pageUpTo } from '../../page.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { emptyBodySchema } from '../validation.js';
import { alertResponseSchema, listAlertsQuerySchema } from './schemas.js';

export interface AlertRoutesDeps {
  readonly postgres: PostgresStore;
  /** The clock of lifecycle timestamps. */
  readonly now?: () => number;
}

export function alertRoutes({ postgres, now = Date.now }: AlertRoutesDeps): ApiRouter {
  const api = new ApiRouter('alerts', '/v1.0/alerts', ['alertID']);
  const list = new PresentedAlertList();

  api.add(
    {
      method: 'get',
      path: '/',
      summary: 'List alerts, newest first',
      query: listAlertsQuerySchema,
      responses: { 200: { description: 'Alerts.', schema: { type: 'array', items: alertResponseSchema } }, 400: { description: 'Invalid query.' } },
    },
    async (ctx, { query }) => {
      ctx.type = 'application/json';
      ctx.body = await list.read(postgres, workspaceOf(ctx), pageUpTo(query, MAX_WHOLE_ALERT_LIST), query.status);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/:alertID',
      summary: 'Read an alert',
      responses: {
        200: { description: 'The alert.', schema: alertResponseSchema },
        400: { description: 'alertID is not a UUID.' },
        404: { description: 'No such alert in this workspace.' },
      },
    },
    async (ctx) => {
      ctx.body = alertJson(await getAlert(postgres, workspaceOf(ctx), ctx.params.alertID!));
    },
  );

  for (const action of ALERT_ACTIONS) {
    const t = TRANSITIONS[action];
    api.add(
      {
        method: 'post',
        path: `/:alertID/${action}`,
        summary: `${action[0]!.toUpperCase()}${action.slice(1)} an alert`,
        description: `Allowed from ${t.from.join(', ')}; the alert becomes ${t.to} and ${t.stamp} is set.${t.notifies ? ` Notifies ${t.notifies}.` : ''} An alert already ${t.to}: 200 with it unchanged, nothing notified again (a retried request). Any other status: 409 invalid_transition.`,
        body: emptyBodySchema,
        responses: {
          200: { description: 'The updated alert (unchanged when it already was in the target state).', schema: alertResponseSchema },
          400: { description: 'alertID is not a UUID, or the body is not empty.' },
          404: { description: 'No such alert in this workspace.' },
          409: { description: "The alert's status does not allow this action." },
        },
      },
      async (ctx) => {
        ctx.body = alertJson(await applyAlertAction(postgres, workspaceOf(ctx), ctx.params.alertID!, action, new Date(now())));
      },
    );
  }

  return api;
}
