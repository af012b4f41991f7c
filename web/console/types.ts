// The resources as the API shows them, as far as the console reads them. Forms are built
// from the OpenAPI document instead (schemaForm.tsx), so new fields need no change here.
import type { RollupItem } from '../shared/rollups.js';
import { browserZone } from '../shared/time.js';

export interface EventDefinition {
  event_id: string;
  event: string;
  agent: string;
  title: string | null;
  description: string;
  unit: string;
  timezone: string;
  public: boolean;
  share_token: string;
  /** The share page at the service's PUBLIC_URL; null when that is not set. */
  share_url?: string | null;
  created_at: string;
}

export type Resource = Record<string, unknown>;

export interface Policy extends Resource {
  policy_id: string;
  /** One event definition, or null for a fleet policy (which names `event`). */
  event_id: string | null;
  event: string | null;
  agents: string[];
  filter: Record<string, string | string[]>;
  group_by: string[];
  timezone: string | null;
  title: string;
  period: string;
  aggregate: string;
  condition: string;
  threshold: number;
  severity: string;
  enabled: boolean;
  compare_to?: string | null;
  pending_buckets?: number;
  recovery_threshold?: number | null;
  no_data?: string;
  min_count?: number;
  renotify_minutes?: number | null;
}

export interface Alert {
  alert_id: string;
  compare_to?: string | null;
  recovery_threshold?: number | null;
  policy_id: string;
  event_id: string | null;
  agent: string;
  event: string;
  /** What the alert is about: its agent, or a fleet policy's group ({} for the whole fleet). */
  labels: Record<string, string>;
  fingerprint: string;
  title: string;
  period: string;
  aggregate: string;
  condition: string;
  threshold: number;
  severity: string;
  value: number | null;
  count: number;
  bucket_start: string | null;
  status: 'triggered' | 'acknowledged' | 'resolved' | 'archived';
  triggered_at: string;
  acknowledged_at: string | null;
  resolved_at: string | null;
  archived_at: string | null;
  alerted_at: string | null;
  acknowledged_via?: 'api' | 'notification_link' | null;
  /** A received alert's (docs/alertmanager.md): its source, annotations, when the sender says it started, and the rule's link. */
  alert_source_id?: string | null;
  annotations?: Record<string, string> | null;
  starts_at?: string | null;
  generator_url?: string | null;
}

export interface Destination extends Resource {
  destination_id: string;
  channel: string;
  url: string | null;
  credentials: Record<string, unknown> | null;
  scope: string;
  policy_ids: string[];
  enabled: boolean;
  last_delivered_at: string | null;
  last_error: string | null;
}

export interface DeliveryAttempt {
  attempt_id: string;
  channel: string;
  target: string;
  status: string;
  response_status: number | null;
  error_message: string | null;
  kind: string;
  type?: string;
  /** alert.escalated: the step the attempt sent; on_call: whom a step naming schedules or people paged. */
  escalation?: { step: number; of: number; round: number; on_call?: { schedule_id: string | null; person_id: string | null }[] } | null;
  attempt?: number;
  created_at: string;
}

export interface WindowComparison {
  period: string;
  previous: string;
  windows?: { current: { from: string; to: string }; previous: { from: string; to: string } };
  data: Record<string, number | null> | null;
}

export type { RollupItem };

/** What every page of the console is given. */
export interface PageProps {
  readonly doc: import('./openapi.js').ApiDocument;
  /** Every event definition of the workspace, newest first. */
  readonly events: readonly EventDefinition[];
  readonly reloadEvents: () => void;
  readonly route: import('./hooks.js').Route;
}

/** 'agent / event', how an event is named where its title is not enough. */
export const eventSource = (e: Pick<EventDefinition, 'agent' | 'event'>) => `${e.agent} / ${e.event}`;
export const eventName = (e: Pick<EventDefinition, 'title' | 'event'>) => e.title || e.event;

/** The timezone of an event's data (its chart, alerts, previews); the browser's where the event is not known. */
export const zoneOfEvent = (events: readonly EventDefinition[], eventId: string | null | undefined) =>
  events.find((e) => e.event_id === eventId)?.timezone ?? browserZone();

/** Where a destination sends, as the API shows it (secrets abbreviated). */
export const destinationTarget = (d: Destination) =>
  d.url ?? (d.credentials?.chat_id !== undefined ? `chat ${String(d.credentials.chat_id)}` : 'the workspace owner');

/** 'route="/checkout", code="500"': labels as a person reads them; '' for none. */
export const labelsText = (labels: Readonly<Record<string, string>>, leaveOut: readonly string[] = []) =>
  Object.keys(labels)
    .filter((name) => !leaveOut.includes(name))
    .sort()
    .map((name) => `${name}="${labels[name]}"`)
    .join(', ');

/** What an alert is about, in words: its agent and event, with the group's other labels. */
export function alertSubject(a: Pick<Alert, 'agent' | 'event' | 'labels'>): string {
  const others = labelsText(a.labels ?? {}, a.labels?.agent === a.agent ? ['agent'] : []);
  const stream = a.agent ? `${a.agent} / ${a.event}` : `${a.event} (every agent)`;
  return others ? `${stream} · ${others}` : stream;
}

/** What a policy watches, in words. */
export function policySubject(p: Pick<Policy, 'event' | 'agents' | 'filter' | 'group_by'>, definition: EventDefinition | undefined): string {
  if (p.event === null || p.event === undefined) return definition ? eventSource(definition) : 'an event definition no longer there';
  const agents = p.agents.length === 1 && p.agents[0] === '*' ? 'every agent' : `agents ${p.agents.join(', ')}`;
  const filter = Object.entries(p.filter).map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(' or ') : v}`);
  const grouped = p.group_by.length > 0 ? `, each ${p.group_by.join(' and ')} on its own` : ', as one';
  return `${p.event}: ${agents}${filter.length > 0 ? ` where ${filter.join(', ')}` : ''}${grouped}`;
}

/** The dimensions of an event name (PUT /v1.0/dimensions/:event). */
export interface Dimension {
  event: string;
  keys: string[];
  overflowing: boolean;
  created_at: string;
  updated_at: string;
  backfill: { status: 'running' | 'done'; from: string; to: string };
}

/** One group of GET /v1.0/series: its labels, and its buckets newest first. */
export interface SeriesGroup {
  labels: Record<string, string>;
  buckets: RollupItem[];
}

/** The value every key of the series over an event name's series limit takes (docs/fleets.md). */
export const OVERFLOW_VALUE = '__overflow__';

/** A label's value in words: the overflow series and an absent key named, not shown as API values. */
export const labelValueText = (value: string) => (value === OVERFLOW_VALUE ? 'other series (over the limit)' : value === '' ? '(not set)' : value);

/** What a series read or ranking may break an event name down by: its agents, or a declared key's values. */
export const groupByChoices = (keys: readonly string[]) => ['agent', ...keys].map((k) => [k, k] as const);

/** A group of a series read or ranking, in words: "web-1", "route /a · code 500", "the whole fleet". */
export function groupName(labels: Readonly<Record<string, string>>): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return 'the whole fleet';
  if (keys.length === 1) return labelValueText(labels[keys[0]!]!);
  return keys.map((k) => `${k} ${labelValueText(labels[k]!)}`).join(' · ');
}
