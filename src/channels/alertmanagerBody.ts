// Alertmanager's webhook v4 body (docs/api.md, What is sent), for webhook destinations with
// format "alertmanager": receivers made for Alertmanager (Keep, Alerta, calert, Grafana
// OnCall's integration) take it as is. A notification is one body with one alert; a group
// (alert.group) one body with all of its alerts. A received alert shows its own labels and
// annotations; a policy alert its labels plus alertname, severity, event, policy_id and
// agent, and annotations summary (its title), description (its policy's) and ack_url.
import type { Labels } from '../labels/labels.js';
import { matchingLabels } from '../matchers/alertLabels.js';
import type { Notification, NotifiedAlert } from '../notifications/model.js';

/** Alertmanager's "no end yet" (Go's zero time). */
const ZERO_TIME = '0001-01-01T00:00:00Z';

function annotationsOf(alert: NotifiedAlert, description: string | null): Labels {
  if (typeof alert.alert_source_id === 'string') return alert.annotations ?? {};
  const out: Record<string, string> = {};
  if (alert.title) out.summary = alert.title;
  if (description) out.description = description;
  if (typeof alert.ack_url === 'string' && alert.ack_url !== '') out.ack_url = alert.ack_url;
  return out;
}

/** The labels (or annotations) every one of the maps has with the same value. */
function common(maps: readonly Labels[]): Labels {
  if (maps.length === 0) return {};
  const [first, ...rest] = maps;
  return Object.fromEntries(Object.entries(first!).filter(([name, value]) => rest.every((m) => m[name] === value)));
}

export interface AlertmanagerBodyContext {
  /** PUBLIC_URL: Alertmanager's externalURL. */
  readonly externalUrl: string;
  /** The destination: Alertmanager's receiver. */
  readonly receiver: string;
  /** The policy's description, for a policy alert's description annotation (null: none). */
  readonly description: string | null;
}

export function alertmanagerBody(notification: Notification, context: AlertmanagerBodyContext): Record<string, unknown> {
  const resolvedType = notification.type === 'alert.group' ? notification.group!.type === 'alert.resolved' : notification.type === 'alert.resolved';
  const members = notification.type === 'alert.group' ? notification.group!.alerts : [notification.alert];
  const alerts = members.map((a) => {
    const resolved = resolvedType || a.status === 'resolved' || a.status === 'archived';
    return {
      status: resolved ? 'resolved' : 'firing',
      labels: matchingLabels(a),
      annotations: annotationsOf(a, context.description),
      startsAt: a.starts_at ?? a.triggered_at ?? ZERO_TIME,
      endsAt: resolved ? (a.resolved_at ?? a.ends_at ?? a.archived_at ?? ZERO_TIME) : ZERO_TIME,
      generatorURL: a.generator_url ?? `${context.externalUrl}/#/alerts?alert=${encodeURIComponent(String(a.alert_id ?? ''))}`,
      fingerprint: a.fingerprint ?? '',
    };
  });
  const commonLabels = common(alerts.map((a) => a.labels));
  return {
    version: '4',
    groupKey: `{}:{receiver="${context.receiver}"}`,
    truncatedAlerts: 0,
    status: alerts.some((a) => a.status === 'firing') ? 'firing' : 'resolved',
    receiver: context.receiver,
    groupLabels: {},
    commonLabels,
    commonAnnotations: common(alerts.map((a) => a.annotations)),
    externalURL: context.externalUrl,
    alerts,
  };
}
