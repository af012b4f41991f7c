import { ALERT_STATUSES } from '../../alerts/model.js';
import { MAX_WHOLE_ALERT_LIST } from '../../page.js';
import { wholeListQueryProperties } from '../params.js';

export const listAlertsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: ALERT_STATUSES },
    ...wholeListQueryProperties,
    limit: {
      ...wholeListQueryProperties.limit,
      description: `At most this many alerts (default: every alert matching the query, newest first, at most ${MAX_WHOLE_ALERT_LIST}).`,
    },
  },
} as const;

const timestamp = { type: 'string', format: 'date-time' } as const;
const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' } as const;
const nullableNumber = { type: ['number', 'null'] } as const;

/** An alert's labels (src/labels): names to string values, names sorted. */
export const labelsSchema = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description:
    'What the alert is about, as names and string values: `{"agent": …}` for a policy on one event definition, the group\'s values for a fleet policy, the received labels for an alert from an Alertmanager client.',
} as const;

export const alertResponseSchema = {
  type: 'object',
  required: ['alert_id', 'policy_id', 'event_id', 'status', 'triggered_at'],
  properties: {
    alert_id: { type: 'string', format: 'uuid' },
    policy_id: { type: 'string', format: 'uuid' },
    event_id: {
      type: ['string', 'null'],
      format: 'uuid',
      description: "The event definition the alert is about; null for a fleet policy's group that is not one agent's.",
    },
    agent: { type: 'string' },
    event: { type: 'string' },
    labels: labelsSchema,
    fingerprint: {
      type: 'string',
      pattern: '^[0-9a-f]{16}$',
      description: "A stable hash of the labels (16 hex digits; Prometheus' and Alertmanager's fingerprint of the same label set).",
    },
    title: { type: 'string' },
    channel: { type: 'string' },
    period: { type: 'string' },
    aggregate: { type: 'string' },
    condition: { type: 'string' },
    threshold: { type: 'number' },
    severity: { type: 'string' },
    recovery_threshold: { ...nullableNumber, description: "The policy's recovery threshold (hysteresis) when the alert was raised." },
    compare_to: { type: ['string', 'null'], description: 'Set for a comparison policy: value is then a percentage change.' },
    value: {
      ...nullableNumber,
      description: 'What was compared with the threshold in the bucket that raised or last updated the alert: the aggregate, or its percentage change.',
    },
    aggregate_value: { ...nullableNumber, description: "The bucket's aggregate (null: no data)." },
    comparison_value: { ...nullableNumber, description: 'With compare_to: the same aggregate of the comparison bucket.' },
    comparison_bucket_start: { ...nullableTimestamp, description: 'With compare_to: the start of the comparison bucket.' },
    count: { type: 'integer' },
    min: nullableNumber,
    max: nullableNumber,
    bucket_start: timestamp,
    bucket_end: timestamp,
    breaching_since: { ...timestamp, description: 'The start of the first breaching bucket of the run that raised the alert.' },
    breaching_buckets: { type: 'integer', description: 'Buckets that breached (or, with a recovery threshold, kept the alert open) since then.' },
    peak_value: { ...nullableNumber, description: 'The most extreme value among those buckets, in the direction of the condition.' },
    silent_since: { ...nullableTimestamp, description: 'The start of the run of empty buckets the last evaluated bucket belongs to; null when it had logs.' },
    status: { type: 'string', enum: ALERT_STATUSES },
    triggered_at: timestamp,
    acknowledged_at: nullableTimestamp,
    resolved_at: nullableTimestamp,
    archived_at: nullableTimestamp,
    alerted_at: { ...nullableTimestamp, description: 'When the first notification was delivered.' },
  },
} as const;
