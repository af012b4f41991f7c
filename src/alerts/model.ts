// What an alert is, and how the API shows it. alertJson is used by GET /v1.0/alerts/:id, the
// lifecycle actions, POST /policies/:id/evaluate and the outbox (alert_notifications.alert),
// so a notification carries exactly what a client would read; it lives here, below HTTP,
// because the outbox is written by the domain.

export const ALERT_STATUSES = ['triggered', 'acknowledged', 'resolved', 'archived'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];
export const OPEN_STATUSES: readonly AlertStatus[] = ['triggered', 'acknowledged'];
/** Where an acknowledgement came from: the API (console, SDKs) or a notification's acknowledge link. */
export type AcknowledgedVia = 'api' | 'notification_link';
/** The timestamp column a lifecycle action sets. */
export type AlertStamp = 'acknowledged_at' | 'resolved_at' | 'archived_at';

/** An alerts row. */
export interface Alert {
  alert_id: string;
  workspace_id: string;
  policy_id: string;
  event_id: string;
  agent: string;
  event: string;
  title: string;
  channel: string;
  period: string;
  aggregate: string;
  condition: string;
  threshold: number;
  severity: string;
  recovery_threshold: number | null;
  compare_to: string | null;
  /** The number compared with the threshold: the aggregate, or with compare_to its percentage change. */
  value: number | null;
  /** The bucket's aggregate. */
  aggregate_value: number | null;
  /** With compare_to: the same aggregate of the comparison bucket, and when that bucket starts. */
  comparison_value: number | null;
  comparison_bucket_start: Date | null;
  count: number;
  min: number | null;
  max: number | null;
  bucket_start: Date;
  bucket_end: Date;
  /** Start of the first breaching bucket of the run that raised the alert. */
  breaching_since: Date;
  /** Buckets that breached (or, with recovery_threshold, kept the alert open) since then. */
  breaching_buckets: number;
  /** The most extreme value among them, in the direction of the condition. */
  peak_value: number | null;
  /** Start of the run of empty buckets that the last evaluated bucket belongs to; null when it had logs. */
  silent_since: Date | null;
  status: AlertStatus;
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
export function alertJson(a: Alert) {
  return {
    alert_id: a.alert_id,
    policy_id: a.policy_id,
    event_id: a.event_id,
    agent: a.agent,
    event: a.event,
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

export type AlertJson = ReturnType<typeof alertJson>;
