// What a notification says, in words, for the chat and email channels: the title, the
// stream (agent / event), the value against the rule, the severity and the time, and what a
// person needs to act: both aggregates of a comparison, how long the rule has breached, how
// long the event has been silent. Resolved notifications and reminders say so; test
// notifications say they are a test.
import type { Notification, NotifiedAlert } from '../notifications/model.js';
import { labelsText } from '../labels/labels.js';
import { handoffLines, handoffOf, handoffSubject } from './handoffMessage.js';

const CONDITION_WORDS: Record<string, string> = {
  gt: 'above',
  gte: 'at or above',
  lt: 'below',
  lte: 'at or below',
  eq: 'equal to',
};

const AGGREGATE_WORDS: Record<string, string> = {
  sum: 'sum',
  count: 'count',
  average: 'average',
  min: 'minimum',
  max: 'maximum',
  p95_est: 'p95 (estimated)',
  p99_est: 'p99 (estimated)',
};

function formatNumber(value: unknown): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 'no data';
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(6)));
}

function headline(notification: Notification): string {
  const alert = notification.alert;
  const severity = String(alert.severity ?? 'info').toUpperCase();
  const title = String(alert.title ?? 'Alert');
  if (notification.type === 'test') return `[TEST] ${title}`;
  if (notification.type === 'alert.resolved') return `[RESOLVED] ${title}`;
  if (notification.type === 'alert.reminder') return `[REMINDER] [${severity}] ${title}`;
  if (notification.type === 'alert.escalated') return `[ESCALATED${escalationWords(alert)}] [${severity}] ${title}`;
  return `[${severity}] ${title}`;
}

/** " step 2 of 3, round 1" */
function escalationWords(alert: NotifiedAlert): string {
  const e = alert.escalation;
  return e ? ` step ${e.step} of ${e.of}, round ${e.round}` : '';
}

const COMPARISON_WORDS: Record<string, (period: string) => string> = {
  previous_bucket: (period) => `the ${period} before`,
  previous_1d: (period) => `the same ${period} a day earlier`,
  previous_7d: (period) => `the same ${period} 7 days earlier`,
};

/** "+60% (16 against 10 the minute before)" */
function changeWords(alert: NotifiedAlert): string {
  const pct = typeof alert.value === 'number' ? `${alert.value >= 0 ? '+' : ''}${formatNumber(alert.value)}%` : 'no change measured';
  const against = COMPARISON_WORDS[String(alert.compare_to)]?.(String(alert.period ?? 'bucket')) ?? 'the comparison bucket';
  return `${pct} (${formatNumber(alert.aggregate_value)} against ${formatNumber(alert.comparison_value)} ${against})`;
}

/**
 * "p95 (estimated) per minute was 812, above the threshold 500", or for a comparison policy
 * "count per hour changed by +60% (16 against 10 the same hour 7 days earlier), above the threshold +50%"
 */
function ruleLine(alert: NotifiedAlert, resolved: boolean): string {
  const aggregate = AGGREGATE_WORDS[String(alert.aggregate)] ?? String(alert.aggregate ?? 'value');
  const condition = CONDITION_WORDS[String(alert.condition)] ?? String(alert.condition ?? '');
  const period = alert.period ? ` per ${String(alert.period)}` : '';
  const compared = typeof alert.compare_to === 'string';
  const value = compared ? changeWords(alert) : formatNumber(alert.value);
  const threshold = compared ? `${formatNumber(alert.threshold)}%` : formatNumber(alert.threshold);
  if (resolved) return `${aggregate}${period} is back to ${value}; the alert fires when it is ${condition} ${threshold}`;
  if (alert.value === null && !compared) return `${aggregate}${period} had no data (an empty bucket), which breaches this policy`;
  return `${aggregate}${period} ${compared ? 'changed by' : 'was'} ${value}, ${condition} the threshold ${threshold}`;
}

const DURATION_UNITS: readonly [string, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

/** "2 hours 5 minutes": the largest unit and the next one when it is not zero. */
export function durationWords(ms: number): string {
  const parts: string[] = [];
  let rest = Math.max(0, Math.round(ms / 1000) * 1000);
  for (const [unit, size] of DURATION_UNITS) {
    const n = Math.floor(rest / size);
    if (n === 0 && parts.length > 0) break;
    if (n > 0) parts.push(`${n} ${unit}${n === 1 ? '' : 's'}`);
    rest -= n * size;
    if (parts.length === 2) break;
  }
  return parts.join(' ') || '0 seconds';
}

const ms = (iso: unknown) => (typeof iso === 'string' ? Date.parse(iso) : Number.NaN);

/** How long the rule has breached, how long the event has been silent, and what resolves it. */
function contextLines(alert: NotifiedAlert): string[] {
  const lines: string[] = [];
  const end = ms(alert.bucket_end);
  const since = ms(alert.breaching_since);
  const buckets = alert.breaching_buckets;
  if (Number.isFinite(since) && Number.isFinite(end) && typeof buckets === 'number' && buckets > 1) {
    lines.push(`Breaching for ${durationWords(end - since)}, since ${String(alert.breaching_since)} (${buckets} ${String(alert.period ?? 'bucket')}s)`);
  }
  const silent = ms(alert.silent_since);
  if (Number.isFinite(silent) && Number.isFinite(end)) lines.push(`No logs for ${durationWords(end - silent)}, since ${String(alert.silent_since)}`);
  if (typeof alert.peak_value === 'number' && typeof buckets === 'number' && buckets > 1) {
    lines.push(`Peak: ${formatNumber(alert.peak_value)}${typeof alert.compare_to === 'string' ? '%' : ''}`);
  }
  if (typeof alert.recovery_threshold === 'number' && alert.status !== 'resolved') {
    const condition = CONDITION_WORDS[String(alert.condition)] ?? String(alert.condition ?? '');
    lines.push(`Resolves once no longer ${condition} ${formatNumber(alert.recovery_threshold)} (the recovery threshold)`);
  }
  return lines;
}

function whenLine(notification: Notification): string {
  const alert = notification.alert;
  if (notification.type === 'alert.resolved') return `Resolved at ${String(alert.resolved_at ?? new Date().toISOString())}`;
  if (notification.type === 'alert.reminder' || notification.type === 'alert.escalated') {
    return `Triggered at ${String(alert.triggered_at)}, still triggered and not acknowledged`;
  }
  return `Triggered at ${String(alert.triggered_at ?? new Date().toISOString())}`;
}

/** `Labels: code="500", route="/checkout"`, leaving out the agent the line above names; null when nothing is left. */
function labelsLine(alert: NotifiedAlert): string | null {
  const labels = alert.labels ?? {};
  const text = labelsText(labels, labels.agent === alert.agent ? ['agent'] : []);
  return text === '' ? null : `Labels: ${text}`;
}

/** A received alert (docs/alertmanager.md) has no rule of alertmon's: its description annotation, and where it comes from. */
function receivedLines(alert: NotifiedAlert): string[] {
  const lines: string[] = [];
  const description = alert.annotations?.description;
  if (typeof description === 'string' && description !== '') lines.push(description);
  if (typeof alert.starts_at === 'string') lines.push(`Firing since ${alert.starts_at}`);
  if (typeof alert.generator_url === 'string') lines.push(`Source: ${alert.generator_url}`);
  return lines;
}

/** The lines of the message, first line the headline. */
export function messageLines(notification: Notification): string[] {
  const handoff = handoffOf(notification);
  if (handoff !== null) return handoffLines(handoff);
  const alert = notification.alert;
  const lines = [headline(notification)];
  // Second, so that a message cut to the provider's limit keeps it whole.
  if (typeof alert.ack_url === 'string') lines.push(`Acknowledge: ${alert.ack_url}`);
  if (notification.type === 'test') lines.push('This is a test notification from alertmon: the destination works.');
  // A fleet alert of a group that is no one agent's names the event alone (its labels follow).
  lines.push(alert.agent === '' ? String(alert.event ?? '') : `${String(alert.agent ?? 'default')} / ${String(alert.event ?? '')}`);
  const labels = labelsLine(alert);
  if (labels !== null) lines.push(labels);
  if (typeof alert.alert_source_id === 'string') lines.push(...receivedLines(alert));
  else {
    lines.push(ruleLine(alert, notification.type === 'alert.resolved'));
    lines.push(...contextLines(alert));
  }
  lines.push(`Severity: ${String(alert.severity ?? 'info')}`);
  lines.push(whenLine(notification));
  if (alert.alert_id) lines.push(`Alert ${String(alert.alert_id)}`);
  return lines;
}

export function messageText(notification: Notification): string {
  return messageLines(notification).join('\n');
}

/** Email subject: the headline with what happened. */
export function emailSubject(notification: Notification): string {
  const handoff = handoffOf(notification);
  if (handoff !== null) return handoffSubject(handoff);
  const alert = notification.alert;
  const title = String(alert.title ?? 'Alert');
  if (notification.type === 'test') return `[alertmon test] ${title}`;
  if (notification.type === 'alert.resolved') return `[alertmon] Resolved: ${title}`;
  if (notification.type === 'alert.reminder') return `[alertmon] Reminder, ${String(alert.severity ?? 'info').toUpperCase()}: ${title}`;
  if (notification.type === 'alert.escalated') {
    return `[alertmon] Escalated${escalationWords(alert)}, ${String(alert.severity ?? 'info').toUpperCase()}: ${title}`;
  }
  return `[alertmon] ${String(alert.severity ?? 'info').toUpperCase()}: ${title}`;
}
