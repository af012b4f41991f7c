// What an alert source is (docs/api.md, Alert sources): a Prometheus, vmalert or Grafana that
// sends its firing alerts to alertmon as to an Alertmanager, and how its alerts are read:
// which label carries the severity, when an alert no post extends resolves, who is paged
// next, which alerts silence which (inhibition).
import type { Labels } from '../labels/labels.js';
import type { Matcher } from '../matchers/model.js';
import { LIMITS as POLICY_LIMITS, SEVERITIES, type Severity } from '../policies/model.js';

/** Bounds of the fields, for the API schema and the checks alike. */
export const ALERT_SOURCE_LIMITS = {
  name: { max: 200 },
  severityLabel: { max: 1024 },
  resolveTimeoutMinutes: { min: 1, max: 1440 },
  renotifyMinutes: POLICY_LIMITS.renotifyMinutes,
  /** Inhibition rules of one source: each is matched against every open alert of the source. */
  inhibitRules: { max: 100 },
  /** Matchers of one side of a rule, once parsed (one text may hold several). */
  matchersPerSide: { min: 1, max: 20 },
  /** One matcher text (it may hold a list: `{a="b", c=~"d"}`). */
  matcherText: { max: 16_384 },
  equalLabels: { max: 20 },
  /** Alert sources one workspace may keep. */
  perWorkspace: 1000,
} as const;

export interface InhibitRule {
  /** While an open alert of the source matches all of these… */
  readonly source_matchers: readonly Matcher[];
  /** …its open alerts that match all of these… */
  readonly target_matchers: readonly Matcher[];
  /** …and have the same values of these labels as it (a missing label is empty) are inhibited. */
  readonly equal: readonly string[];
}

export interface AlertSource {
  alert_source_id: string;
  workspace_id: string;
  /** Its key in an alerting-as-code document (docs/as-code.md): unique per workspace and kind; null: none yet. */
  key: string | null;
  name: string;
  severity_label: string;
  default_severity: Severity;
  escalation_policy_id: string | null;
  renotify_minutes: number | null;
  resolve_timeout_minutes: number;
  inhibit_rules: InhibitRule[];
  created_at: Date;
  updated_at: Date;
}

/** The fields a client sets. */
export type AlertSourceFields = Pick<
  AlertSource,
  'name' | 'severity_label' | 'default_severity' | 'escalation_policy_id' | 'renotify_minutes' | 'resolve_timeout_minutes' | 'inhibit_rules'
>;

export const ALERT_SOURCE_DEFAULTS = {
  severity_label: 'severity',
  default_severity: 'error',
  escalation_policy_id: null,
  renotify_minutes: null,
  resolve_timeout_minutes: 5,
  inhibit_rules: [],
} as const satisfies Omit<AlertSourceFields, 'name'>;

/** Values of the severity label, as Prometheus rules write them, and the severity each means. */
const SEVERITY_WORDS: Readonly<Record<string, Severity>> = {
  critical: 'critical',
  page: 'critical',
  error: 'error',
  high: 'error',
  warning: 'warning',
  warn: 'warning',
  info: 'info',
  low: 'info',
  none: 'info',
};

/** An alert's severity: its `severity_label` value read as a word (any case), else the source's default. */
export function severityOf(source: Pick<AlertSource, 'severity_label' | 'default_severity'>, labels: Labels): Severity {
  const word = Object.hasOwn(labels, source.severity_label) ? labels[source.severity_label]!.trim().toLowerCase() : '';
  return Object.hasOwn(SEVERITY_WORDS, word) ? SEVERITY_WORDS[word]! : source.default_severity;
}

export { SEVERITIES, type Severity };
