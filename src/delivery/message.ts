// What a notification says, in words, for the chat and email channels: the title, the
// stream (agent / event), the value against the rule, the severity and the time.
// Resolved notifications say so; test notifications say they are a test.
import type { Notification, NotifiedAlert } from '../alerts/outbox.js';

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
  return `[${severity}] ${title}`;
}

/** "p95 (estimated) per minute was 812, above the threshold 500" */
function ruleLine(alert: NotifiedAlert, resolved: boolean): string {
  const aggregate = AGGREGATE_WORDS[String(alert.aggregate)] ?? String(alert.aggregate ?? 'value');
  const condition = CONDITION_WORDS[String(alert.condition)] ?? String(alert.condition ?? '');
  const period = alert.period ? ` per ${String(alert.period)}` : '';
  const value = formatNumber(alert.value);
  const threshold = formatNumber(alert.threshold);
  if (resolved) return `${aggregate}${period} is back to ${value}; the alert fires when it is ${condition} ${threshold}`;
  return `${aggregate}${period} was ${value}, ${condition} the threshold ${threshold}`;
}

function whenLine(notification: Notification): string {
  const alert = notification.alert;
  if (notification.type === 'alert.resolved') return `Resolved at ${String(alert.resolved_at ?? new Date().toISOString())}`;
  return `Triggered at ${String(alert.triggered_at ?? new Date().toISOString())}`;
}

/** The lines of the message, first line the headline. */
export function messageLines(notification: Notification): string[] {
  const alert = notification.alert;
  const lines = [headline(notification)];
  if (notification.type === 'test') lines.push('This is a test notification from alertmon: the destination works.');
  lines.push(`${String(alert.agent ?? 'default')} / ${String(alert.event ?? '')}`);
  lines.push(ruleLine(alert, notification.type === 'alert.resolved'));
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
  const alert = notification.alert;
  const title = String(alert.title ?? 'Alert');
  if (notification.type === 'test') return `[alertmon test] ${title}`;
  if (notification.type === 'alert.resolved') return `[alertmon] Resolved: ${title}`;
  return `[alertmon] ${String(alert.severity ?? 'info').toUpperCase()}: ${title}`;
}
