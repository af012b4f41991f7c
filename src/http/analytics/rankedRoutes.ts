// GET /v1.0/analytics?event=…&view=window&period=…&previous=… (docs/fleets.md, Ranked window
// comparisons): an event name's groups compared across two windows and ranked. Its query
// repeats `agent` and `filter`, so the handler reads ctx.query itself, with the schema
// documented here.
import type { Context } from 'koa';
import { COMPARISON_FIELDS, MAX_RANKED_GROUPS, rankedComparison, type RankedComparisonRequest } from '../../analytics/rankedComparison.js';
import { COMPARISONS, WINDOW_PERIODS } from '../../analytics/windows.js';
import { validationFailed, type ErrorDetail } from '../../errors.js';
import type { TimezoneCatalog } from '../../events/timezones.js';
import type { Stores } from '../../stores/index.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { rankedComparisonJson } from './representation.js';
import { rankedQuerySchema, rankedResponseSchema } from './schemas.js';

const KNOWN = new Set(Object.keys(rankedQuerySchema.properties));
/** Longer values are refused before anything reads them (a pattern or filter is far shorter). */
const MAX_TEXT = 10_000;

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const oneOf = <T extends string>(values: readonly T[], text: string): text is T => (values as readonly string[]).includes(text);

/** The query as a request, every problem of its shape reported at once. */
function requestOf(ctx: Context): Omit<RankedComparisonRequest, 'now'> {
  const q = ctx.query;
  const problems: ErrorDetail[] = [];
  for (const name of Object.keys(q)) if (!KNOWN.has(name)) problems.push({ path: `/${name}`, message: 'is not a parameter of this route' });
  if (Object.values(q).some((v) => list(v).some((t) => t.length > MAX_TEXT))) problems.push({ path: '', message: 'holds a value too long' });
  const one = (name: string): string | undefined => {
    const values = list(q[name]);
    if (values.length > 1) problems.push({ path: `/${name}`, message: 'must be given once' });
    return values[0];
  };
  const required = (name: string): string => {
    const value = one(name);
    if (value === undefined) problems.push({ path: `/${name}`, message: 'is required' });
    return value ?? '';
  };
  const event = required('event');
  const view = required('view');
  if (view !== '' && view !== 'window') problems.push({ path: '/view', message: 'must be window' });
  const period = required('period');
  if (period !== '' && !oneOf(WINDOW_PERIODS, period)) problems.push({ path: '/period', message: `must be one of ${WINDOW_PERIODS.join(', ')}` });
  const previous = required('previous');
  if (previous !== '' && !oneOf(COMPARISONS, previous)) problems.push({ path: '/previous', message: `must be one of ${COMPARISONS.join(', ')}` });
  const orderBy = one('order_by') ?? 'value_pct_change';
  if (!oneOf(COMPARISON_FIELDS, orderBy)) problems.push({ path: '/order_by', message: `must be one of ${COMPARISON_FIELDS.join(', ')}` });
  const direction = one('direction') ?? 'desc';
  if (direction !== 'asc' && direction !== 'desc') problems.push({ path: '/direction', message: 'must be asc or desc' });
  const limitText = one('limit');
  const limit = limitText === undefined ? 10 : /^\d{1,4}$/.test(limitText) ? Number(limitText) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_RANKED_GROUPS)) problems.push({ path: '/limit', message: `must be an integer from 1 to ${MAX_RANKED_GROUPS}` });
  const groupByText = one('group_by');
  const groupBy = groupByText === undefined || groupByText === '' ? [] : groupByText.split(',').map((k) => k.trim());
  if (groupBy.length > 9 || groupBy.some((k) => k === '')) problems.push({ path: '/group_by', message: 'must be at most 9 comma-separated keys' });
  const timezone = one('timezone') ?? 'UTC';
  if (problems.length > 0) throw validationFailed(problems);
  return {
    event,
    period: period as RankedComparisonRequest['period'],
    previous: previous as RankedComparisonRequest['previous'],
    agents: list(q.agent),
    filters: list(q.filter),
    groupBy,
    timezone,
    orderBy: orderBy as RankedComparisonRequest['orderBy'],
    direction: direction as RankedComparisonRequest['direction'],
    limit,
  };
}

export function rankedAnalyticsRoutes(stores: Stores, timezones: TimezoneCatalog): ApiRouter {
  return new ApiRouter('analytics', '/v1.0/analytics', []).add(
    {
      method: 'get',
      path: '/',
      summary: 'Rank the groups of an event name by how their windows compare',
      description:
        'The windows of GET /v1.0/events/:eventID/analytics, in the given timezone, compared for each group of the event name (each agent, ' +
        'each value of the declared keys grouped by, or the whole fleet as one), ranked by one figure, nulls last. Read from the hour and ' +
        'minute rollups in one query. Groups by agent or of the whole fleet need no dimensions.',
      handlerValidatedQuery: rankedQuerySchema,
      responses: {
        200: { description: 'The first `limit` groups.', schema: rankedResponseSchema },
        400: {
          description:
            'A missing or bad parameter, an unsupported period/previous pair, an unknown timezone, or a filter or group_by key that is neither agent nor declared (naming it).',
        },
        404: { description: 'No agent of this workspace sends the event name.' },
      },
    },
    async (ctx) => {
      const request = { ...requestOf(ctx), now: Date.now() };
      ctx.body = rankedComparisonJson(await rankedComparison(stores, timezones, workspaceOf(ctx), request));
    },
  );
}
