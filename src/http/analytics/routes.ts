// GET /v1.0/events/:eventID/analytics?view=window&period=…&previous=… (docs/api.md, Analytics).
import { windowComparison } from '../../analytics/windowComparison.js';
import type { Stores } from '../../stores/index.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { windowComparisonJson } from './representation.js';
import { windowQuerySchema, windowResponseSchema } from './schemas.js';

export function analyticsRoutes(stores: Stores): ApiRouter {
  return new ApiRouter('analytics', '/v1.0/events', ['eventID']).add(
    {
      method: 'get',
      path: '/:eventID/analytics',
      summary: 'Compare the current calendar window of an event with an earlier one',
      description:
        "Windows are calendar windows of the event's timezone: the clock hour, the day since local midnight, the ISO week since Monday 00:00 " +
        'or the calendar month, each to now, against a window of the same elapsed span earlier. Computed from the minute, hour and day rollups; ' +
        'the response shows the exact instants compared.',
      query: windowQuerySchema,
      responses: {
        200: { description: 'The comparison.', schema: windowResponseSchema },
        400: { description: 'A missing or unknown parameter, an unsupported period/previous pair, or an event id that is not a UUID.' },
        404: { description: 'No such event in this workspace.' },
      },
    },
    async (ctx, { query }) => {
      const comparison = await windowComparison(stores, workspaceOf(ctx), {
        eventId: ctx.params.eventID!,
        period: query.period,
        previous: query.previous,
        now: Date.now(),
      });
      ctx.body = windowComparisonJson(comparison);
    },
  );
}
