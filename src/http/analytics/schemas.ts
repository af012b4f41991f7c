// The window-analytics request and response (docs/api.md, Analytics).
import { COMPARISON_FIELDS, MAX_RANKED_GROUPS } from '../../analytics/rankedComparison.js';
import { COMPARISONS, WINDOW_PERIODS } from '../../analytics/windows.js';

export const windowQuerySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['view', 'period', 'previous'],
  properties: {
    view: { type: 'string', enum: ['window'], description: 'The kind of analytics; `window` compares two calendar windows.' },
    period: {
      type: 'string',
      enum: WINDOW_PERIODS,
      description: "The current window, in the event's timezone: the clock hour, today, this ISO week, this month, each up to now.",
    },
    previous: {
      type: 'string',
      enum: COMPARISONS,
      description:
        'The comparison window, of the same elapsed span: the window before, or the same local clock times 1, 7 or 30 days earlier ' +
        '(28 for 7d). Supported: 1h with all four; 1d with previous_window, previous_7d, previous_1m; 7d with previous_window, ' +
        'previous_1m; 1m with previous_window.',
    },
  },
} as const;

const nullableNumber = { type: ['number', 'null'] } as const;

/** The 14 figures of a comparison (docs/api.md, Analytics). */
const comparisonFiguresSchema = {
  type: 'object',
  required: COMPARISON_FIELDS,
  properties: {
    current_value: { type: 'number', description: 'Sum of values in the current window.' },
    current_count: { type: 'integer', description: 'Logs in the current window.' },
    current_mean: { ...nullableNumber, description: 'current_value / current_count; null when the window is empty.' },
    current_stddev: { type: 'number', description: 'Sample standard deviation (n − 1); 0 below two logs.' },
    previous_value: { type: 'number' },
    previous_count: { type: 'integer' },
    previous_mean: nullableNumber,
    previous_stddev: { type: 'number' },
    value_delta: { type: 'number', description: 'current_value − previous_value.' },
    count_delta: { type: 'integer' },
    mean_delta: { ...nullableNumber, description: 'null when either mean is null.' },
    value_pct_change: { ...nullableNumber, description: '(current − previous) / previous × 100; null when previous is 0.' },
    count_pct_change: nullableNumber,
    mean_pct_change: nullableNumber,
  },
} as const;

const rangeSchema = {
  type: 'object',
  required: ['from', 'to'],
  properties: {
    from: { type: 'string', format: 'date-time', description: 'Start, included (ISO 8601 UTC).' },
    to: { type: 'string', format: 'date-time', description: 'End, excluded: the end of the current minute for the current window.' },
  },
} as const;

export const windowResponseSchema = {
  type: 'object',
  required: ['event_id', 'view', 'period', 'previous', 'timezone', 'windows', 'data'],
  properties: {
    event_id: { type: 'string', format: 'uuid' },
    view: { type: 'string', enum: ['window'] },
    period: { type: 'string', enum: WINDOW_PERIODS },
    previous: { type: 'string', enum: COMPARISONS },
    timezone: { type: 'string', description: "The event's timezone, in which the windows are calendar windows." },
    windows: {
      type: 'object',
      required: ['current', 'previous'],
      description: 'The exact UTC instants compared.',
      properties: { current: rangeSchema, previous: rangeSchema },
    },
    data: {
      description: 'null when neither window has a log.',
      oneOf: [{ type: 'null' }, comparisonFiguresSchema],
    },
  },
} as const;

export const rankedQuerySchema = {
  type: 'object',
  required: ['event', 'view', 'period', 'previous'],
  properties: {
    event: { type: 'string', description: 'The records’ event name.' },
    view: windowQuerySchema.properties.view,
    period: { ...windowQuerySchema.properties.period, description: 'The current window, in `timezone`.' },
    previous: windowQuerySchema.properties.previous,
    agent: { type: 'array', items: { type: 'string' }, description: 'Repeatable: exact agent names or patterns with `*`.' },
    filter: {
      type: 'array',
      items: { type: 'string' },
      description: 'Repeatable `key:value` (agent or a declared key); a key given twice matches either value.',
    },
    group_by: { type: 'string', description: 'Comma-separated keys from agent and the declared keys; default none (the whole fleet as one group).' },
    timezone: { type: 'string', default: 'UTC', description: 'IANA name: the windows of a day or more are its calendar days.' },
    order_by: { type: 'string', enum: COMPARISON_FIELDS, default: 'value_pct_change', description: 'The figure groups are ranked by; nulls last.' },
    direction: { type: 'string', enum: ['desc', 'asc'], default: 'desc' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_RANKED_GROUPS, default: 10, description: 'Groups in the answer.' },
  },
} as const;

export const rankedResponseSchema = {
  type: 'object',
  required: ['event', 'view', 'period', 'previous', 'group_by', 'timezone', 'windows', 'data', 'truncated'],
  properties: {
    event: { type: 'string' },
    view: { type: 'string', enum: ['window'] },
    period: { type: 'string', enum: WINDOW_PERIODS },
    previous: { type: 'string', enum: COMPARISONS },
    group_by: { type: 'array', items: { type: 'string' } },
    timezone: { type: 'string', description: 'The timezone whose calendar windows are compared.' },
    windows: windowResponseSchema.properties.windows,
    data: {
      type: 'array',
      description: 'The groups with a record in either window, ranked; empty when none.',
      items: {
        ...comparisonFiguresSchema,
        required: ['labels', ...comparisonFiguresSchema.required],
        properties: {
          labels: { type: 'object', additionalProperties: { type: 'string' }, description: 'The group: its value of each group_by key.' },
          ...comparisonFiguresSchema.properties,
        },
      },
    },
    truncated: { type: 'boolean', description: 'More groups than limit had a record in either window.' },
  },
} as const;
