// The labels silences and inhibition rules match an alert on (docs/api.md, Silences): a received alert's
// own labels; a policy alert's labels plus alertname (its title), severity, event, policy_id
// and agent where it has them.
import type { Labels } from '../labels/labels.js';

/** The fields of an alert (a row, or a notified alert) that matching reads. */
export interface MatchableAlert {
  readonly labels?: Labels | null;
  readonly alert_source_id?: string | null;
  readonly policy_id?: string | null;
  readonly title?: string | null;
  readonly severity?: string | null;
  readonly event?: string | null;
  readonly agent?: string | null;
}

export function matchingLabels(a: MatchableAlert): Labels {
  const labels = a.labels ?? {};
  if (a.alert_source_id) return labels;
  const extra: Record<string, string> = {};
  if (a.title) extra.alertname = a.title;
  if (a.severity) extra.severity = a.severity;
  if (a.event) extra.event = a.event;
  if (a.policy_id) extra.policy_id = a.policy_id;
  if (a.agent) extra.agent = a.agent;
  return { ...labels, ...extra };
}
