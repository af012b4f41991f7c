// The notification contract: what alerts, escalation, delivery and channels say to one
// another about a notification. An outbox row (written when an alert changes, or an
// escalation step is due) carries the alert as the API shows it; delivery turns it into
// attempts and channels into messages. Nothing here knows how an alert is stored or decided.
import type { Labels } from '../labels/labels.js';

/** What an outbox row tells: an alert raised, resolved, still triggered (a reminder), or escalated to the next step's destinations. */
export const NOTIFICATION_TYPES = ['alert.triggered', 'alert.resolved', 'alert.reminder', 'alert.escalated'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** An alert's lifecycle as a notified alert shows it (docs/api.md, Alerts). */
export const ALERT_STATUSES = ['triggered', 'acknowledged', 'resolved', 'archived'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];
/** Where an acknowledgement came from: the API (console, SDKs) or a notification's acknowledge link. */
export type AcknowledgedVia = 'api' | 'notification_link';

/**
 * An alert as the API shows it (built by alertJson, src/alerts/model.ts): what GET
 * /v1.0/alerts/:id answers and what a notification carries, so a receiver reads exactly what
 * a client would. Timestamps are ISO 8601 UTC with milliseconds; a step that has not happened is null.
 */
export interface AlertJson {
  alert_id: string;
  /** The policy that raised it; null for an alert received from an alert source. */
  policy_id: string | null;
  /** The alert source (docs/alertmanager.md) whose sender posted it; null for a policy alert. */
  alert_source_id: string | null;
  /** The event definition the alert is about; null for a fleet alert of a group that is not one agent's. */
  event_id: string | null;
  agent: string;
  event: string;
  /** What the alert is about (src/labels): the agent, a fleet policy's group, a received alert's labels. */
  labels: Labels;
  /** Of the labels (labelsFingerprint), as an Alertmanager computes it. */
  fingerprint: string;
  /** A received alert's annotations as the sender gave them; {} for a policy alert. */
  annotations: Labels;
  /** A received alert: the sender's startsAt, the end of its lease (endsAt given, or the resolve timeout), its generatorURL. */
  starts_at: string | null;
  ends_at: string | null;
  generator_url: string | null;
  title: string;
  channel: string;
  period: string;
  aggregate: string;
  condition: string;
  /** Null for a received alert (no rule of alertmon's). */
  threshold: number | null;
  severity: string;
  recovery_threshold: number | null;
  compare_to: string | null;
  /** The number compared with the threshold: the aggregate, or with compare_to its percentage change. */
  value: number | null;
  /** The bucket's aggregate. */
  aggregate_value: number | null;
  /** With compare_to: the same aggregate of the comparison bucket, and when that bucket starts. */
  comparison_value: number | null;
  comparison_bucket_start: string | null;
  count: number;
  min: number | null;
  max: number | null;
  bucket_start: string | null;
  bucket_end: string | null;
  /** Start of the first breaching bucket of the run that raised the alert. */
  breaching_since: string | null;
  /** Buckets that breached (or, with recovery_threshold, kept the alert open) since then. */
  breaching_buckets: number;
  /** The most extreme value among them, in the direction of the condition. */
  peak_value: number | null;
  /** Start of the run of empty buckets that the last evaluated bucket belongs to; null when it had logs. */
  silent_since: string | null;
  status: AlertStatus;
  triggered_at: string | null;
  acknowledged_at: string | null;
  resolved_at: string | null;
  archived_at: string | null;
  alerted_at: string | null;
  acknowledged_via: AcknowledgedVia | null;
}

/** Step `step` of `of`, in round `round` (1 + repeat rounds in all; docs/api.md, Escalation). */
export interface EscalationPosition {
  readonly step: number;
  readonly of: number;
  readonly round: number;
  /**
   * A step that names schedules or people: who it paged, from which schedule (null: a person
   * the step names), resolved when it fired; person_id null where no one was on call.
   */
  readonly on_call?: readonly OnCallPaged[];
}

/** One person a step paged (or, person_id null, a schedule with no one on call). */
export interface OnCallPaged {
  readonly schedule_id: string | null;
  readonly person_id: string | null;
}

/**
 * The alert a notification carries: the AlertJson of the alert at the moment of the notification.
 * A row written by an older version lacks the fields added since, and a test send's synthetic
 * alert belongs to no policy, so readers take every field as possibly absent or null.
 */
export type NotifiedAlert = { readonly [K in keyof AlertJson]?: AlertJson[K] | null } & {
  /** The acknowledge link's token (ackLinks.ts); channels show it as ack_url (src/channels/links.ts), never as is. */
  readonly ack_token?: string | null;
  /** The acknowledge link, as channels send it (set from ack_token at send time). */
  readonly ack_url?: string | null;
  /** alert.escalated: which step of the chain this is. */
  readonly escalation?: EscalationPosition | null;
  /** schedule.handoff: the shift that starts (the notice carries no alert, only this). */
  readonly handoff?: HandoffNotice | null;
};

/** A handoff notice's type: sent to the person whose shift starts (docs/oncall.md, Handoff notices). */
export const HANDOFF_TYPE = 'schedule.handoff';

/** The shift a schedule.handoff notice announces. Timestamps ISO 8601 UTC. */
export interface HandoffNotice {
  readonly handoff_id: string;
  readonly schedule_id: string;
  readonly schedule_name: string;
  readonly timezone: string;
  readonly person_id: string;
  readonly person_name: string;
  /** The layer's name, or "override". */
  readonly layer: string;
  readonly starts_at: string;
  readonly ends_at: string;
}

/** The notification types a destination's grouping window holds (docs/api.md, Grouping). */
export const GROUPED_TYPES = ['alert.triggered', 'alert.resolved'] as const;
export type GroupedType = (typeof GROUPED_TYPES)[number];

/** alert.group: the notifications of one type that a destination's grouping window held, oldest first. */
export interface NotificationGroup {
  readonly type: GroupedType;
  readonly alerts: readonly NotifiedAlert[];
}

/** A notification as delivery sends it: an outbox row, a test send (never written to the outbox), or a group. */
export interface Notification {
  /** The outbox row's id (a test send's synthetic alert id, a group's id): the same on every retry, so receivers dedupe on it. */
  readonly id: string;
  readonly type: NotificationType | 'test' | 'alert.group' | typeof HANDOFF_TYPE;
  /** The alert notified (of a group: its first). */
  readonly alert: NotifiedAlert;
  /** alert.group only. */
  readonly group?: NotificationGroup;
}
