// The window-analytics request and response (docs/api.md, Analytics).
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
      oneOf: [
        { type: 'null' },
        {
          type: 'object',
          required: [
            'current_value',
            'current_count',
            'current_mean',
            'current_stddev',
            'previous_value',
            'previous_count',
            'previous_mean',
            'previous_stddev',
            'value_delta',
            'count_delta',
            'mean_delta',
            'value_pct_change',
            'count_pct_change',
            'mean_pct_change',
          ],
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
        },
      ],
    },
  },
} as const;
