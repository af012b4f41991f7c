// Dimensions of an event name (docs/fleets.md, Dimensions).
import type { Context } from 'koa';
import { deleteDimension, type DimensionsDeps, getDimension, listDimensions, putDimension } from '../../dimensions/operations.js';
import { validationFailed } from '../../errors.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { pathSegmentProblem } from '../rawText.js';
import { dimensionJson } from './representation.js';
import { dimensionResponseSchema, listDimensionsQuerySchema, putDimensionSchema } from './schemas.js';

const errors = {
  400: { description: 'Invalid input (validation_failed: an event name or a key that cannot be one, too many keys, a key given twice).' },
  404: { description: 'No dimensions declared for this event name in this workspace.' },
} as const;

/** The `:event` of the path, decoded; a segment that is not percent-encoded UTF-8 → 400 (rawText.ts). */
function eventOf(ctx: Context): string {
  const problem = pathSegmentProblem(ctx, '/v1.0/dimensions/', '/event');
  if (problem !== null) throw validationFailed([problem]);
  return ctx.params.event!;
}

export function dimensionRoutes(deps: DimensionsDeps): ApiRouter {
  return new ApiRouter('dimensions', '/v1.0/dimensions', [])
    .add(
      {
        method: 'get',
        path: '/',
        summary: 'List the declared dimensions, newest first',
        description: 'Without limit, every declaration of the workspace.',
        query: listDimensionsQuerySchema,
        responses: { 200: { description: 'Declarations.', schema: { type: 'array', items: dimensionResponseSchema } }, 400: errors[400] },
      },
      async (ctx, { query }) => {
        ctx.body = (await listDimensions(deps, workspaceOf(ctx), { limit: query.limit ?? null, offset: query.offset ?? 0 })).map(dimensionJson);
      },
    )
    .add(
      {
        method: 'get',
        path: '/:event',
        summary: 'Read the dimensions of an event name',
        description: '`:event` is the records’ event name, URL-encoded.',
        responses: { 200: { description: 'The declaration.', schema: dimensionResponseSchema }, ...errors },
      },
      async (ctx) => {
        ctx.body = dimensionJson(await getDimension(deps, workspaceOf(ctx), eventOf(ctx)));
      },
    )
    .add(
      {
        method: 'put',
        path: '/:event',
        summary: 'Declare the dimensions of an event name',
        description:
          'Every record of the event name, from every agent, then belongs to a series: its agent plus the value of each key in its meta. Replaces the keys declared before; the series rollups are rebuilt from the raw logs kept (`backfill`), and records acknowledged after the answer are broken down as they land.',
        body: putDimensionSchema,
        responses: {
          200: { description: 'The declaration.', schema: dimensionResponseSchema },
          400: errors[400],
          409: { description: 'The workspace declares dimensions of as many event names as it may (dimension_limit_reached).' },
        },
      },
      async (ctx, { body }) => {
        ctx.body = dimensionJson(await putDimension(deps, workspaceOf(ctx), eventOf(ctx), body.keys));
      },
    )
    .add(
      {
        method: 'delete',
        path: '/:event',
        summary: 'Remove the dimensions of an event name',
        description: 'The breakdown and its series rollups go; the event rollups stay.',
        responses: { 204: { description: 'Removed.' }, ...errors },
      },
      async (ctx) => {
        await deleteDimension(deps, workspaceOf(ctx), eventOf(ctx));
        ctx.status = 204;
      },
    );
}
