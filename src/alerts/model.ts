// What an alert is, and how the API shows it. alertJson is used by GET /v1.0/alerts/:id, the
// lifecycle actions, POST /policies/:id/evaluate and the outbox (alert_notifications.alert),
// so a notification carries exactly what a client would read; it lives here, below HTTP,
// because the outbox is written by the domain.

export const ALERT_STATUSES = ['triggered', 'acknowledged', 'resolved', 'archived'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];
export const OPEN_STATUSES: readonly AlertStatus[] = ['triggered', 'acknowledged'];

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
  value: number | null;
  count: number;
  min: number | null;
  max: number | null;
  bucket_start: Date;
  bucket_end: Date;
  status: AlertStatus;
  triggered_at: Date;
  acknowledged_at: Date | null;
  resolved_at: Date | null;
  archived_at: Date | null;
  alerted_at: Date | null;
  updated_at: Date;
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
    value: a.value,
    count: a.count,
    min: a.min,
    max: a.max,
    bucket_start: iso(a.bucket_start),
    bucket_end: iso(a.bucket_end),
    status: a.status,
    triggered_at: iso(a.triggered_at),
    acknowledged_at: iso(a.acknowledged_at),
    resolved_at: iso(a.resolved_at),
    archived_at: iso(a.archived_at),
    alerted_at: iso(a.alerted_at),
  };
}

export type AlertJson = ReturnType<typeof alertJson>;
