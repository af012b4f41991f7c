// Alert sources as the API shows them: inhibition rules with one matcher text per item.
import type { AlertSource } from '../../alertsources/model.js';
import { inhibitRulesAsWritten } from '../../alertsources/inhibitRules.js';

export function alertSourceJson(s: AlertSource) {
  return {
    alert_source_id: s.alert_source_id,
    key: s.key,
    name: s.name,
    severity_label: s.severity_label,
    default_severity: s.default_severity,
    escalation_policy_id: s.escalation_policy_id,
    renotify_minutes: s.renotify_minutes,
    resolve_timeout_minutes: s.resolve_timeout_minutes,
    inhibit_rules: inhibitRulesAsWritten(s.inhibit_rules),
    created_at: s.created_at.toISOString(),
    updated_at: s.updated_at.toISOString(),
  };
}
