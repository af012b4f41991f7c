// The resources as the API shows them, as far as the console reads them. Forms are built
// from the OpenAPI document instead (schemaForm.tsx), so new fields need no change here.
import type { RollupItem } from '../shared/rollups.js';

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
  event_id: string;
  title: string;
  period: string;
  aggregate: string;
  condition: string;
  threshold: number;
  severity: string;
  enabled: boolean;
}

export interface Alert {
  alert_id: string;
  policy_id: string;
  event_id: string;
  agent: string;
  event: string;
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
  /** alert.escalated: the step the attempt sent. */
  escalation?: { step: number; of: number; round: number } | null;
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
