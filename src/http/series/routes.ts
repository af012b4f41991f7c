// GET /v1.0/series (docs/fleets.md, Reading series). Its query repeats `agent` and `filter`,
// so the handler reads ctx.query itself, with the schema documented here.
import type { Context } from 'koa';
import { type SeriesQuery, seriesOf } from '../../dimensions/seriesReads.js';
import { validationFailed, type ErrorDetail } from '../../errors.js';
import { PERIODS, type Period } from '../../rollups/model.js';
import type { Stores } from '../../stores/index.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';

const KNOWN = new Set(['event', 'period', 'from', 'to', 'agent', 'filter', 'group_by', 'limit']);
const MAX_TEXT = 1_000;

const seriesQuerySchema = {
  type: 'object',
  required: ['event'],
  properties: {
    event: { type: 'string', description: 'The records’ event name.' },
    period: { type: 'string', enum: PERIODS, default: 'minute' },
    from: { type: 'string', format: 'date-time', description: 'Default: 60 minutes, 48 hours or 31 days before to.' },
    to: { type: 'string', format: 'date-time', description: 'Default: now.' },
    agent: { type: 'array', items: { type: 'string' }, description: 'Repeatable: exact agent names or patterns with `*`.' },
    filter: {
      type: 'array',
      items: { type: 'string' },
      description: 'Repeatable `key:value` (agent or a declared key); a key given twice matches either value.',
    },
    group_by: { type: 'string', description: 'Comma-separated keys from agent and the declared keys; default none (the whole fleet).' },
    limit: { type: 'integer', minimum: 1, maximum: 10_000, default: 100, description: 'Groups, the largest by count first.' },
  },
} as const;

const bucketSchema = {
  type: 'object',
  properties: {
    occurred_at: { type: 'string', format: 'date-time' },
    count: { type: 'integer' },
    value: { type: 'number' },
    squares: { type: 'number' },
    min: { type: 'number' },
    max: { type: 'number' },
    p95_est: { type: ['number', 'null'] },
    p99_est: { type: ['number', 'null'] },
  },
} as const;

const seriesResponseSchema = {
  type: 'object',
  required: ['event', 'period', 'group_by', 'series', 'truncated'],
  properties: {
    event: { type: 'string' },
    period: { type: 'string', enum: PERIODS },
    group_by: { type: 'array', items: { type: 'string' } },
    series: {
      type: 'array',
      items: {
        type: 'object',
        properties: { labels: { type: 'object', additionalProperties: { type: 'string' } }, buckets: { type: 'array', items: bucketSchema } },
      },
    },
    truncated: { type: 'boolean', description: 'More groups than limit.' },
  },
} as const;

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The query as SeriesQuery, every problem reported at once. */
function queryOf(ctx: Context): SeriesQuery {
  const q = ctx.query;
  const problems: ErrorDetail[] = [];
  for (const name of Object.keys(q)) if (!KNOWN.has(name)) problems.push({ path: `/${name}`, message: 'is not a parameter of this route' });
  const one = (name: string): string | undefined => {
    const values = list(q[name]);
    if (values.length > 1) problems.push({ path: `/${name}`, message: 'must be given once' });
    return values[0];
  };
  const texts = [...Object.values(q)].flatMap((v) => list(v));
  if (texts.some((t) => t.length > MAX_TEXT * 10)) problems.push({ path: '', message: 'holds a value too long' });
  const event = one('event');
  if (event === undefined) problems.push({ path: '/event', message: 'is required' });
  const period = one('period') ?? 'minute';
  if (!(PERIODS as readonly string[]).includes(period)) problems.push({ path: '/period', message: 'must be minute, hour or day' });
  const instant = (name: string): number | null => {
    const text = one(name);
    if (text === undefined) return null;
    const at = /^\d{4}-\d\d-\d\dT/.test(text) ? Date.parse(text) : Number.NaN;
    if (Number.isNaN(at)) problems.push({ path: `/${name}`, message: 'must be an ISO 8601 instant' });
    return at;
  };
  const from = instant('from');
  const to = instant('to');
  const limitText = one('limit');
  const limit = limitText === undefined ? 100 : /^\d{1,5}$/.test(limitText) ? Number(limitText) : Number.NaN;
  if (!(limit >= 1 && limit <= 10_000)) problems.push({ path: '/limit', message: 'must be an integer from 1 to 10000' });
  const groupByText = one('group_by');
  const groupBy = groupByText === undefined || groupByText === '' ? [] : groupByText.split(',').map((k) => k.trim());
  if (groupBy.length > 9 || groupBy.some((k) => k === '')) problems.push({ path: '/group_by', message: 'must be at most 9 comma-separated keys' });
  if (problems.length > 0) throw validationFailed(problems);
  return { event: event!, period: period as Period, from, to, agents: list(q.agent), filters: list(q.filter), groupBy, limit };
}

export function seriesRoutes(stores: Stores): ApiRouter {
  return new ApiRouter('series', '/v1.0/series', []).add(
    {
      method: 'get',
      path: '/',
      summary: 'Read the series of an event name',
      description:
        'Groups of the event name’s records (by agent and declared keys, or the whole fleet as one), each with its buckets newest first (empty buckets left out), the largest groups by count first. Reads by agent or of the whole fleet need no dimensions.',
      handlerValidatedQuery: seriesQuerySchema,
      responses: {
        200: { description: 'The series.', schema: seriesResponseSchema },
        400: { description: 'A bad parameter, or a filter or group_by key that is neither agent nor declared (validation_failed, naming it).' },
      },
    },
    async (ctx) => {
      const query = queryOf(ctx);
      const read = await seriesOf(stores, workspaceOf(ctx), query);
      ctx.body = { event: query.event, period: query.period, group_by: query.groupBy, series: read.series, truncated: read.truncated };
    },
  );
}
