// Inhibition (docs/alertmanager.md): while an open alert of a source matches an inhibition
// rule's source_matchers, the source's open alerts that match its target_matchers, with the
// same values of its `equal` labels (a missing label is empty), are inhibited. An alert does
// not inhibit itself. Read when notifications are dispatched and when held ones are released,
// and by the tools' API (status.inhibitedBy).
import type { Labels } from '../labels/labels.js';
import { compileMatchers, type LabelPredicate } from '../matchers/match.js';
import type { Queryable } from '../stores/postgres.js';
import type { InhibitRule } from './model.js';

/** A received alert to check: its id, its source, its labels. */
export interface InhibitionTarget {
  readonly alertId: string;
  readonly alertSourceId: string;
  readonly labels: Labels;
}

interface CompiledRule {
  readonly source: LabelPredicate;
  readonly target: LabelPredicate;
  readonly equal: readonly string[];
}

const compileRule = (r: InhibitRule): CompiledRule => ({
  source: compileMatchers(r.source_matchers),
  target: compileMatchers(r.target_matchers),
  equal: r.equal,
});
const labelValue = (labels: Labels, name: string) => (Object.hasOwn(labels, name) ? labels[name]! : '');

/** For each target (by alert id) that is inhibited now, the fingerprints of the open alerts that inhibit it (Alertmanager's inhibitedBy). */
export async function inhibitingAlerts(db: Queryable, targets: readonly InhibitionTarget[]): Promise<Map<string, string[]>> {
  const inhibited = new Map<string, string[]>();
  const sourceIds = [...new Set(targets.map((t) => t.alertSourceId))];
  if (sourceIds.length === 0) return inhibited;
  const sources = await db.query<{ alert_source_id: string; inhibit_rules: InhibitRule[] }>(
    `SELECT alert_source_id, inhibit_rules FROM alert_sources WHERE alert_source_id = ANY ($1::uuid[]) AND jsonb_array_length(inhibit_rules) > 0`,
    [sourceIds],
  );
  if (sources.length === 0) return inhibited;
  const rules = new Map(sources.map((s) => [s.alert_source_id, s.inhibit_rules.map(compileRule)]));
  const open = await db.query<{ alert_id: string; alert_source_id: string; labels: Labels; fingerprint: string }>(
    `SELECT alert_id, alert_source_id, labels, fingerprint FROM alerts
     WHERE alert_source_id = ANY ($1::uuid[]) AND status IN ('triggered', 'acknowledged')`,
    [[...rules.keys()]],
  );
  for (const t of targets) {
    const own = rules.get(t.alertSourceId);
    if (own === undefined) continue;
    const by = new Set<string>();
    for (const rule of own) {
      if (!rule.target(t.labels)) continue;
      for (const s of open) {
        if (s.alert_source_id !== t.alertSourceId || s.alert_id === t.alertId || !rule.source(s.labels)) continue;
        if (rule.equal.every((name) => labelValue(s.labels, name) === labelValue(t.labels, name))) by.add(s.fingerprint);
      }
    }
    if (by.size > 0) inhibited.set(t.alertId, [...by]);
  }
  return inhibited;
}
