import { ALERT_SOURCE_DEFAULTS as D, ALERT_SOURCE_LIMITS as L, SEVERITIES } from '../../alertsources/model.js';
import { MATCHER_LIMITS } from '../../matchers/model.js';
import { wholeListQueryProperties } from '../params.js';
import { PATTERNS } from '../validation.js';
import { keyProperty } from '../keySchema.js';

const dateTime = { type: 'string', format: 'date-time' } as const;

const matcherTexts = {
  type: 'array',
  minItems: 1,
  maxItems: L.matchersPerSide.max,
  items: {
    type: 'string',
    minLength: 1,
    maxLength: L.matcherText.max,
    description:
      'A matcher in Alertmanager’s syntax (`alertname="NodeDown"`, `severity=~"warning|critical"`, `env!="dev"`), or several in one: `{a="b", c!~"d"}`.',
  },
} as const;

const inhibitRuleSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['source_matchers', 'target_matchers'],
  properties: {
    source_matchers: {
      ...matcherTexts,
      description: `While an open alert of this source matches every one of these (${L.matchersPerSide.min}–${L.matchersPerSide.max} matchers)…`,
    },
    target_matchers: {
      ...matcherTexts,
      description: `…the source’s open alerts that match every one of these (${L.matchersPerSide.min}–${L.matchersPerSide.max} matchers)…`,
    },
    equal: {
      type: 'array',
      maxItems: L.equalLabels.max,
      items: { type: 'string', minLength: 1, maxLength: MATCHER_LIMITS.nameLength },
      description:
        '…and have the same values of these labels (a missing label counts as empty) are inhibited: notified only if still open when no source alert matches any more. Default [].',
    },
  },
} as const;

const writable = {
  key: keyProperty,
  name: { type: 'string', pattern: PATTERNS.notBlank, maxLength: L.name.max, description: 'What the source is (“Prometheus, production”).' },
  severity_label: {
    type: 'string',
    minLength: 1,
    maxLength: L.severityLabel.max,
    description:
      'The label whose value gives an alert its severity: critical or page → critical, error or high → error, warning or warn → warning, info, low or none → info (any case); any other value or none → default_severity. Default "severity".',
  },
  default_severity: {
    type: 'string',
    enum: SEVERITIES,
    description: 'The severity of an alert whose severity label says none of the words above. Default "error".',
  },
  escalation_policy_id: {
    type: ['string', 'null'],
    format: 'uuid',
    description:
      'An escalation policy of the workspace (404 otherwise): while an alert of this source stays triggered, its steps page their destinations (default null: none).',
  },
  renotify_minutes: {
    type: ['integer', 'null'],
    minimum: L.renotifyMinutes.min,
    maximum: L.renotifyMinutes.max,
    description: 'While an alert stays triggered, remind its destinations every this many minutes (default null: never).',
  },
  resolve_timeout_minutes: {
    type: 'integer',
    minimum: L.resolveTimeoutMinutes.min,
    maximum: L.resolveTimeoutMinutes.max,
    description:
      'An alert that no post has extended for this many minutes, and whose endsAt (if any) has passed, resolves (Alertmanager’s resolve_timeout). Default 5.',
  },
  inhibit_rules: {
    type: 'array',
    maxItems: L.inhibitRules.max,
    items: inhibitRuleSchema,
    description: `Alertmanager’s inhibition among this source’s alerts, at most ${L.inhibitRules.max} rules. Each matcher is checked when written (400 invalid_matcher or invalid_matcher_regex naming its path); regexes are RE2, anchored, at most ${MATCHER_LIMITS.regexLength} characters. Default [].`,
  },
} as const;

export const createAlertSourceSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    ...writable,
    severity_label: { ...writable.severity_label, default: D.severity_label },
    default_severity: { ...writable.default_severity, default: D.default_severity },
    escalation_policy_id: { ...writable.escalation_policy_id, default: D.escalation_policy_id },
    renotify_minutes: { ...writable.renotify_minutes, default: D.renotify_minutes },
    resolve_timeout_minutes: { ...writable.resolve_timeout_minutes, default: D.resolve_timeout_minutes },
    inhibit_rules: { ...writable.inhibit_rules, default: D.inhibit_rules },
  },
} as const;

/** Any subset of the fields; read-only fields a client read back are accepted and ignored. */
export const updateAlertSourceSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...writable, alert_source_id: {}, workspace_id: {}, user_id: {}, created_at: {}, updated_at: {} },
} as const;

export const listAlertSourcesQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: wholeListQueryProperties,
} as const;

export const alertSourceResponseSchema = {
  type: 'object',
  required: [
    'alert_source_id',
    'key',
    'name',
    'severity_label',
    'default_severity',
    'escalation_policy_id',
    'renotify_minutes',
    'resolve_timeout_minutes',
    'inhibit_rules',
    'created_at',
    'updated_at',
  ],
  properties: {
    alert_source_id: { type: 'string', format: 'uuid', description: 'Its alerts are posted under /alertmanager/<alert_source_id>/api/v2/alerts.' },
    ...writable,
    inhibit_rules: {
      ...writable.inhibit_rules,
      items: {
        ...inhibitRuleSchema,
        required: ['source_matchers', 'target_matchers', 'equal'],
        properties: {
          ...inhibitRuleSchema.properties,
          source_matchers: {
            ...inhibitRuleSchema.properties.source_matchers,
            description: 'One matcher per item, as Alertmanager writes it (`name="value"`).',
          },
          target_matchers: { ...inhibitRuleSchema.properties.target_matchers, description: 'One matcher per item, as Alertmanager writes it.' },
        },
      },
    },
    created_at: dateTime,
    updated_at: dateTime,
  },
} as const;
