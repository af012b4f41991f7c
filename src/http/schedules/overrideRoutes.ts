// A schedule's overrides (docs/oncall.md): someone on call for a stretch, whatever the layers say.
import type { OnCallDeps } from '../../oncall/people.js';
import { createOverride, deleteOverride, getOverride, listOverrides } from '../../oncall/schedules.js';
import { pageOrAll } from '../../page.js';
import type { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { overrideJson } from './representation.js';
import { createOverrideSchema, listOverridesQuerySchema, overrideResponseSchema } from './schemas.js';

const errors = {
  400: { description: 'Invalid input (invalid_id, validation_failed).' },
  404: { description: 'No such schedule (or override) in this workspace.' },
} as const;

/** The override routes, added to the schedules' router (which requires overrideID to be a UUID too). */
export function overrideRoutes(router: ApiRouter, deps: OnCallDeps): ApiRouter {
  const db = deps.postgres;
  return router
    .add(
      {
        method: 'post',
        path: '/:scheduleID/overrides',
        summary: 'Add an override',
        description:
          'Puts person_id on call from starts_at to ends_at, over every layer. Two overrides of one schedule may not cover the same instant (they may touch): one that overlaps another is refused with 400 naming it.',
        body: createOverrideSchema,
        responses: {
          201: { description: 'The created override.', schema: overrideResponseSchema },
          400: {
            description:
              'Invalid input (invalid_id, validation_failed: ends_at not after starts_at, a person not of this workspace, an overlap with another override).',
          },
          404: errors[404],
          409: { description: 'The schedule has reached its limit of overrides (override_limit_reached).' },
        },
      },
      async (ctx, { body }) => {
        const input = { person_id: body.person_id, starts_at: new Date(body.starts_at), ends_at: new Date(body.ends_at) };
        ctx.status = 201;
        ctx.body = overrideJson(await createOverride(deps, workspaceOf(ctx), ctx.params.scheduleID!, input));
      },
    )
    .add(
      {
        method: 'get',
        path: '/:scheduleID/overrides',
        summary: 'List a schedule’s overrides, newest first',
        description: 'Without limit, every override of the schedule.',
        query: listOverridesQuerySchema,
        responses: { 200: { description: 'Overrides.', schema: { type: 'array', items: overrideResponseSchema } }, ...errors },
      },
      async (ctx, { query }) => {
        ctx.body = (await listOverrides(db, workspaceOf(ctx), ctx.params.scheduleID!, pageOrAll(query))).map(overrideJson);
      },
    )
    .add(
      {
        method: 'get',
        path: '/:scheduleID/overrides/:overrideID',
        summary: 'Read an override',
        responses: { 200: { description: 'The override.', schema: overrideResponseSchema }, ...errors },
      },
      async (ctx) => {
        ctx.body = overrideJson(await getOverride(db, workspaceOf(ctx), ctx.params.scheduleID!, ctx.params.overrideID!));
      },
    )
    .add(
      {
        method: 'delete',
        path: '/:scheduleID/overrides/:overrideID',
        summary: 'Delete an override',
        responses: { 204: { description: 'Deleted: the layers decide again.' }, ...errors },
      },
      async (ctx) => {
        await deleteOverride(db, workspaceOf(ctx), ctx.params.scheduleID!, ctx.params.overrideID!);
        ctx.status = 204;
      },
    );
}
