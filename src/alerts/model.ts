// What an alert is, and how the API shows it. alertJson is used by GET /v1.0/alerts/:id, the
// lifecycle actions, POST /policies/:id/evaluate and the outbox (alert_notifications.alert),
// so a notification carries exactly what a client would read; it lives here, below HTTP,
// because the outbox is written by the domain. Its shape, AlertJson, is part of the
// notification contract (src/notifications/model.ts), as are the statuses.
import { labelsFingerprint, sortedLabels, type Labels } from '../labels/labels.js';
import type { AcknowledgedVia, AlertJson, AlertStatus } from '../notifications/model.js';

export { ALERT_STATUSES, type AcknowledgedVia, type AlertJson, type AlertStatus } from '../notifications/model.js';
export const OPEN_STATUSES: readonly AlertStatus[] = ['triggered', 'acknowledged'];
/** The timestamp column a lifecycle action sets. */
export type AlertStamp = 'acknowledged_at' | 'resolved_at' | 'archived_at';

/** What only a received alert has. */
type ReceivedFields = 'alert_source_id' | 'annotations' | 'generator_url';

/** The columns an alerts row holds as timestamps, which AlertJson shows as ISO text. */
type Timestamps =
  | 'comparison_bucket_start'
  | 'bucket_start'
  | 'bucket_end'
  | 'breaching_since'
  | 'silent_since'
  | 'triggered_at'
  | 'acknowledged_at'
  | 'resolved_at'
  | 'archived_at'
  | 'alerted_at'
  | 'starts_at'
  | 'ends_at';

/** An alerts row: the fields of AlertJson (where they are described), with timestamps as Dates, and what only the row holds. */
export interface Alert extends Omit<AlertJson, Timestamps | 'fingerprint' | 'acknowledged_via' | ReceivedFields | 'policy_id' | 'threshold'> {
  workspace_id: string;
  /** Null only for a received alert (alert_source_id set). */
  policy_id: string;
  threshold: number;
  /** A received alert's (src/alertsources/receive.ts); absent or null on a policy alert. */
  alert_source_id?: string | null;
  annotations?: Labels | null;
  starts_at?: Date | null;
  ends_at?: Date | null;
  generator_url?: string | null;
  comparison_bucket_start: Date | null;
  bucket_start: Date;
  bucket_end: Date;
  breaching_since: Date;
  silent_since: Date | null;
  triggered_at: Date;
  acknowledged_at: Date | null;
  resolved_at: Date | null;
  archived_at: Date | null;
  alerted_at: Date | null;
  /** When its last notification (triggered or reminder) was written: reminders count from it. */
  notified_at: Date;
  updated_at: Date;
  /** Read, never written by evaluation: null until acknowledged. */
  acknowledged_via?: AcknowledgedVia | null;
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/** Timestamps are ISO 8601 UTC with milliseconds; a step that has not happened is null. */
export function alertJson(a: Alert): AlertJson {
  return {
    alert_id: a.alert_id,
    policy_id: a.policy_id,
    alert_source_id: a.alert_source_id ?? null,
    event_id: a.event_id,
    agent: a.agent,
    event: a.event,
    labels: sortedLabels(a.labels),
    fingerprint: labelsFingerprint(a.labels),
    annotations: sortedLabels(a.annotations ?? {}),
    starts_at: iso(a.starts_at ?? null),
    ends_at: iso(a.ends_at ?? null),
    generator_url: a.generator_url ?? null,
    title: a.title,
    channel: a.channel,
    period: a.period,
    aggregate: a.aggregate,
    condition: a.condition,
    threshold: a.threshold,
    severity: a.severity,
    recovery_threshold: a.recovery_threshold,
    compare_to: a.compare_to,
    value: a.value,
    aggregate_value: a.aggregate_value,
    comparison_value: a.comparison_value,
    comparison_bucket_start: iso(a.comparison_bucket_start),
    count: a.count,
    min: a.min,
    max: a.max,
    bucket_start: iso(a.bucket_start),
    bucket_end: iso(a.bucket_end),
    breaching_since: iso(a.breaching_since),
    breaching_buckets: a.breaching_buckets,
    peak_value: a.peak_value,
    silent_since: iso(a.silent_since),
    status: a.status,
    triggered_at: iso(a.triggered_at),
    acknowledged_at: iso(a.acknowledged_at),
    resolved_at: iso(a.resolved_at),
    archived_at: iso(a.archived_at),
    alerted_at: iso(a.alerted_at),
    acknowledged_via: a.acknowledged_via ?? null,
  };
}
