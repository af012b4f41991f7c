// Alert sources (docs/api.md, Alert sources): the Prometheus, vmalert or Grafana servers that
// send their alerts to alertmon as to an Alertmanager.
import { writeWithKey } from '../../ascode/keys.js';
import {
  createAlertSource,
  deleteAlertSource,
  getAlertSource,
  listAlertSources,
  updateAlertSource,
  type AlertSourceDeletion,
} from '../../alertsources/operations.js';
import { pageOrAll } from '../../page.js';
import type { PostgresStore } from '../../stores/postgres.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { alertSourceJson } from './representation.js';
import { alertSourceResponseSchema, createAlertSourceSchema, listAlertSourcesQuerySchema, updateAlertSourceSchema } from './schemas.js';

export interface AlertSourceRoutesDeps {
  readonly postgres: PostgresStore;
  /** What else goes with a deleted source, in its transaction (its open alerts resolved). */
  readonly onDelete?: AlertSourceDeletion;
}

const errors = {
  400: {
    description:
      'Invalid input: invalid_id, validation_failed (a bad field), invalid_matcher (an inhibition rule’s matcher does not parse) or invalid_matcher_regex (its regex is not one RE2 compiles, or too large); details name each path.',
  },
  404: { description: 'No such alert source, or escalation policy, in this workspace.' },
} as const;

export function alertSourceRoutes({ postgres, onDelete }: AlertSourceRoutesDeps): ApiRouter {
  return new ApiRouter('alert sources', '/v1.0/alert-sources', ['alertSourceID'])
    .add(
      {
        method: 'post',
        path: '/',
        summary: 'Create an alert source',
        description:
          'Required: name. A Prometheus (alerting.alertmanagers with path_prefix /alertmanager/<alert_source_id> and the workspace token as authorization.credentials), vmalert (-notifier.url) or Grafana posts its alerts under /alertmanager/<alert_source_id>/api/v2/alerts. Its alerts are routed like a policy’s: to destinations with scope all, and to those with scope policies whose policy_ids name the source.',
        body: createAlertSourceSchema,
        responses: {
          201: { description: 'The created alert source.', schema: alertSourceResponseSchema },
          ...errors,
          409: { description: 'The workspace has reached its limit of alert sources (alert_source_limit_reached).' },
        },
      },
      async (ctx, { body }) => {
        ctx.status = 201;
        const { key, ...fields } = body;
        const workspaceId = workspaceOf(ctx);
        ctx.body = alertSourceJson(await writeWithKey(postgres, 'alert_sources', workspaceId, key, (db) => createAlertSource(db, workspaceId, fields)));
      },
    )
    .add(
      {
        method: 'get',
        path: '/',
        summary: 'List alert sources, newest first',
        description: 'Without limit, every alert source of the workspace.',
        query: listAlertSourcesQuerySchema,
        responses: { 200: { description: 'Alert sources.', schema: { type: 'array', items: alertSourceResponseSchema } }, 400: errors[400] },
      },
      async (ctx, { query }) => {
        ctx.body = (await listAlertSources(postgres, workspaceOf(ctx), pageOrAll(query))).map(alertSourceJson);
      },
    )
    .add(
      {
        method: 'get',
        path: '/:alertSourceID',
        summary: 'Read an alert source',
        responses: { 200: { description: 'The alert source.', schema: alertSourceResponseSchema }, ...errors },
      },
      async (ctx) => {
        ctx.body = alertSourceJson(await getAlertSource(postgres, workspaceOf(ctx), ctx.params.alertSourceID!));
      },
    )
    .add(
      {
        method: 'put',
        path: '/:alertSourceID',
        summary: 'Change an alert source',
        description: 'Any subset of the fields; read-only fields are ignored, so a client may send back what it read.',
        body: updateAlertSourceSchema,
        responses: { 200: { description: 'The updated alert source.', schema: alertSourceResponseSchema }, ...errors },
      },
      async (ctx, { body }) => {
        const workspaceId = workspaceOf(ctx);
        ctx.body = alertSourceJson(
          await writeWithKey(postgres, 'alert_sources', workspaceId, body.key, (db) =>
            updateAlertSource(db, workspaceId, ctx.params.alertSourceID!, {
              name: body.name,
              severity_label: body.severity_label,
              default_severity: body.default_severity,
              escalation_policy_id: body.escalation_policy_id,
              renotify_minutes: body.renotify_minutes,
              resolve_timeout_minutes: body.resolve_timeout_minutes,
              inhibit_rules: body.inhibit_rules,
            }),
          ),
        );
      },
    )
    .add(
      {
        method: 'delete',
        path: '/:alertSourceID',
        summary: 'Delete an alert source',
        description: 'Its open alerts are resolved; destinations that name it in policy_ids keep the id, which then routes nothing.',
        responses: { 204: { description: 'Deleted.' }, ...errors },
      },
      async (ctx) => {
        await deleteAlertSource(postgres, workspaceOf(ctx), ctx.params.alertSourceID!, onDelete);
        ctx.status = 204;
      },
    );
}
