// The variables a message template can name (docs/api.md, Message templates), built from a
// notification and what the delivery path looked up for it: every field of the alert as
// alert.*, the policy's title and description, the event's names and unit, shortcuts for the
// facts a message leads with, the trigger time in the event's timezone, and links. The same
// builder makes the sample views that templates are checked against when they are written,
// so the set of known names is exactly what a real send offers.
import { labelsFingerprint } from '../labels/labels.js';
import type { AlertJson, NotifiedAlert } from '../notifications/model.js';
import { offsetAt } from '../time/zonedTime.js';

/** What the delivery path knows about an alert beyond the alert itself; null where it has no such thing (a test send). */
export interface TemplateContext {
  readonly policy: { readonly title: string; readonly description: string } | null;
  readonly event: { readonly agent: string; readonly event: string; readonly title: string | null; readonly unit: string; readonly timezone: string } | null;
  /** The alert in the console; empty when unknown. */
  readonly consoleUrl: string;
  /** The event's public share page, when the event is public; else empty. */
  readonly shareUrl: string;
  /** The alert's acknowledge link, when the notification carries one; else empty. */
  readonly ackUrl: string;
}

export type TemplateView = Readonly<Record<string, unknown>>;

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/** "2026-11-21 15:04:05 +01:00 (Europe/Paris)": an instant as the wall clock of a timezone shows it. */
export function localTimeText(iso: string | null | undefined, timezone: string): string {
  const ms = typeof iso === 'string' ? Date.parse(iso) : Number.NaN;
  if (!Number.isFinite(ms)) return '';
  let offset: number;
  try {
    offset = offsetAt(timezone, ms);
  } catch {
    return localTimeText(iso, 'UTC');
  }
  const local = new Date(Math.floor(ms / 1000) * 1000 + offset);
  const minutes = Math.round(offset / 60_000);
  const sign = minutes < 0 ? '-' : '+';
  const date = `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  const time = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
  return `${date} ${time} ${sign}${pad(Math.trunc(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)} (${timezone})`;
}

/** Every field of an alert as the API shows it (alertJson's), absent ones null. */
function alertFields(alert: NotifiedAlert): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const name of ALERT_FIELD_NAMES) fields[name] = (alert as Record<string, unknown>)[name] ?? null;
  return fields;
}

/** The variables of one notification. */
export function templateView(alert: NotifiedAlert, context: TemplateContext): TemplateView {
  const event = context.event;
  return {
    alert: alertFields(alert),
    policy: { title: context.policy?.title ?? alert.title ?? '', description: context.policy?.description ?? '' },
    event: {
      agent: event?.agent ?? alert.agent ?? '',
      event: event?.event ?? alert.event ?? '',
      title: event?.title ?? event?.event ?? alert.event ?? '',
      unit: event?.unit ?? '',
    },
    labels: alert.labels ?? {},
    label_list: Object.entries(alert.labels ?? {}).map(([name, value]) => ({ name, value })),
    value: alert.value ?? null,
    threshold: alert.threshold ?? null,
    severity: alert.severity ?? '',
    status: alert.status ?? '',
    triggered_at_local: localTimeText(alert.triggered_at, event?.timezone ?? 'UTC'),
    console_url: context.consoleUrl,
    ack_url: context.ackUrl,
    share_url: context.shareUrl,
  };
}

const SAMPLE_TIME = '2026-03-29T01:30:00.000Z';
const SAMPLE_LABELS = { agent: 'web-1 "sample" \\ <agent>', route: '/checkout' };

/** An alert with every field set, as a notification carries it: the kind a template is checked against. */
const SAMPLE_ALERT: AlertJson = {
  alert_id: '00000000-0000-4000-8000-000000000001',
  policy_id: '00000000-0000-4000-8000-000000000002',
  event_id: '00000000-0000-4000-8000-000000000003',
  agent: 'web-1 "sample" \\ <agent>',
  event: 'http.latency_ms',
  labels: SAMPLE_LABELS,
  fingerprint: labelsFingerprint(SAMPLE_LABELS),
  alert_source_id: null,
  annotations: { description: 'Sample <description> & more', summary: 'Sample "summary"' },
  starts_at: SAMPLE_TIME,
  ends_at: SAMPLE_TIME,
  generator_url: 'http://prometheus.example:9090/graph?g0.expr=up',
  title: 'Sample "alert" \\ <title> & more\nsecond line',
  channel: 'default',
  period: 'minute',
  aggregate: 'p95_est',
  condition: 'gt',
  threshold: 500,
  severity: 'critical',
  recovery_threshold: 400,
  compare_to: 'previous_bucket',
  value: 812.5,
  aggregate_value: 812.5,
  comparison_value: 300,
  comparison_bucket_start: SAMPLE_TIME,
  count: 40,
  min: 20,
  max: 990,
  bucket_start: SAMPLE_TIME,
  bucket_end: SAMPLE_TIME,
  breaching_since: SAMPLE_TIME,
  breaching_buckets: 3,
  peak_value: 990,
  silent_since: SAMPLE_TIME,
  status: 'triggered',
  triggered_at: SAMPLE_TIME,
  acknowledged_at: SAMPLE_TIME,
  resolved_at: SAMPLE_TIME,
  archived_at: SAMPLE_TIME,
  alerted_at: SAMPLE_TIME,
  acknowledged_via: null,
};

/** The field names of alert.*: exactly what the API shows of an alert. */
const ALERT_FIELD_NAMES: readonly string[] = Object.keys(SAMPLE_ALERT);

const SAMPLE_CONTEXT: TemplateContext = {
  policy: { title: SAMPLE_ALERT.title, description: 'What "this" means \\ <description>' },
  event: { agent: SAMPLE_ALERT.agent, event: SAMPLE_ALERT.event, title: 'Latency "p95"', unit: 'ms', timezone: 'Europe/Paris' },
  consoleUrl: 'http://127.0.0.1:8080/#/alerts?alert=00000000-0000-4000-8000-000000000001',
  shareUrl: 'http://127.0.0.1:8080/share/events/00000000-0000-4000-8000-000000000003?token=sample',
  ackUrl: 'http://127.0.0.1:8080/ack/00000000-0000-4000-8000-000000000001?token=sample',
};

/**
 * Views a template must render for: every field set, and every field that may be null null
 * (a body template must be valid JSON for both).
 */
export function sampleViews(): TemplateView[] {
  const full = SAMPLE_ALERT;
  const sparse: NotifiedAlert = Object.fromEntries(Object.entries(full).map(([k, v]) => [k, typeof v === 'string' && k.endsWith('_at') ? null : v]));
  const empty = { ...sparse, value: null, min: null, max: null, peak_value: null, aggregate_value: null, comparison_value: null, recovery_threshold: null };
  return [templateView(full, SAMPLE_CONTEXT), templateView(empty, { ...SAMPLE_CONTEXT, policy: null, event: null, consoleUrl: '', shareUrl: '', ackUrl: '' })];
}

/**
 * The groups whose member names are a notification's own (an alert's labels): any name under
 * them is a variable, empty where the alert has no such label.
 */
export const OPEN_GROUPS: readonly string[] = ['labels', 'alert.labels'];

function namesOf(view: Readonly<Record<string, unknown>>, prefix: string, leaves: Set<string>, groups: Set<string>): void {
  for (const [key, value] of Object.entries(view)) {
    const name = prefix === '' ? key : `${prefix}.${key}`;
    if (Array.isArray(value)) {
      // A list is a section over its items: their fields are named inside it.
      groups.add(name);
      namesOf((value[0] ?? {}) as Record<string, unknown>, name, leaves, groups);
    } else if (value !== null && typeof value === 'object') {
      groups.add(name);
      namesOf(value as Record<string, unknown>, name, leaves, groups);
    } else leaves.add(name);
  }
}

const LEAVES = new Set<string>();
const GROUPS = new Set<string>();
namesOf(templateView(SAMPLE_ALERT, SAMPLE_CONTEXT), '', LEAVES, GROUPS);

/** Every variable a template may write, dotted (alert.title, value, …). */
export function variableNames(): ReadonlySet<string> {
  return LEAVES;
}

/** The names that group variables (alert, policy, event): sections only. */
export function objectVariables(): ReadonlySet<string> {
  return GROUPS;
}
