// What a destination's templates are filled from at send time (docs/api.md, Message
// templates): the policy and event of the alert, looked up only when the destination has a
// template, so a send without one costs no query; and the links the service gives.
import type { Notification, NotifiedAlert } from '../notifications/model.js';
import { BUILT_IN, type Rendering } from '../channels/compose.js';
import { type DestinationTemplates, TEMPLATE_FIELDS } from '../channels/templates.js';
import type { TemplateContext } from '../channels/templateView.js';
import { getEventDefinition } from '../events/store.js';
import { findPolicy } from '../policies/store.js';
import type { Queryable } from '../stores/postgres.js';
import type { DeliverySettings } from './model.js';

export function hasTemplates(templates: Partial<DestinationTemplates>): boolean {
  return TEMPLATE_FIELDS.some((field) => typeof templates[field] === 'string');
}

/** The templates of a destination, null ones where a row lacks them. */
export function templatesOf(row: Partial<DestinationTemplates>): DestinationTemplates {
  return { title_template: row.title_template ?? null, message_template: row.message_template ?? null, body_template: row.body_template ?? null };
}

/** The context of one alert of the workspace: its policy, its event, the links. */
export async function templateContext(db: Queryable, settings: DeliverySettings, workspaceId: string, alert: NotifiedAlert): Promise<TemplateContext> {
  const [policy, event] = await Promise.all([
    typeof alert.policy_id === 'string' ? findPolicy(db, workspaceId, alert.policy_id) : null,
    typeof alert.event_id === 'string' ? getEventDefinition(db, workspaceId, alert.event_id) : null,
  ]);
  const { links } = settings;
  const ackUrl = (alert as { readonly ack_url?: unknown }).ack_url;
  return {
    policy: policy && { title: policy.title, description: policy.description },
    event: event && { agent: event.agent, event: event.event, title: event.title, unit: event.unit, timezone: event.timezone },
    consoleUrl: policy ? `${links.publicUrl}/#/alerts?alert=${encodeURIComponent(String(alert.alert_id))}` : '',
    shareUrl: event?.public ? links.shareUrl(event.event_id, event.share_token) : '',
    ackUrl: typeof ackUrl === 'string' ? ackUrl : '',
  };
}

/** The rendering of one send: the built-in text without templates, else the templates and their context. */
export async function renderingFor(
  db: Queryable,
  settings: DeliverySettings,
  workspaceId: string,
  templates: Partial<DestinationTemplates>,
  notification: Notification,
): Promise<Rendering> {
  // A handoff notice names no alert: templates, written for alerts, do not apply to it.
  if (!hasTemplates(templates) || notification.type === 'schedule.handoff') return BUILT_IN;
  // A group lists alerts of many policies: each line is filled from its own alert alone.
  if (notification.type === 'alert.group') return { templates: templatesOf(templates), context: BUILT_IN.context };
  return { templates: templatesOf(templates), context: await templateContext(db, settings, workspaceId, notification.alert) };
}
