// What a channel sends, composed from the notification and the destination's templates: the
// built-in text (message.ts) where a destination has no template, the template rendered with
// values escaped for the channel where it has one, and a group's summary (alert.group). The
// channels then cut the result to their provider's limit (clip.ts).
import type { Notification, NotifiedAlert } from '../notifications/model.js';
import { clippedMessage, clippedParts, type MessageMarkup } from './clip.js';
import { emailSubject, messageLines, messageText } from './message.js';
import { type DestinationTemplates, NO_TEMPLATES, plainText, renderTemplate, type ValueEscape } from './templates.js';
import { type TemplateContext, templateView } from './templateView.js';

/** A destination's templates and what its variables are filled from. */
export interface Rendering {
  readonly templates: DestinationTemplates;
  readonly context: TemplateContext;
}

/** Without templates and with nothing known beyond the alert: the built-in messages. */
export const BUILT_IN: Rendering = {
  templates: NO_TEMPLATES,
  context: { policy: null, event: null, consoleUrl: '', shareUrl: '', ackUrl: '' },
};

/** How many alerts a group message lists by title. */
export const GROUP_LISTED = 20;

const escaping =
  (markup: MessageMarkup): ValueEscape =>
  (value) =>
    markup.escape(String(value));

/** One alert's line in a group: its title template, or "[CRITICAL] High latency (web-1 / http.latency_ms)". */
function groupItem(alert: NotifiedAlert, rendering: Rendering): string {
  const template = rendering.templates.title_template;
  // Filled from the alert alone: a group's alerts may each have another policy and event.
  if (template !== null) return renderTemplate(template, templateView(alert, BUILT_IN.context), plainText).replace(/\s+/g, ' ');
  const severity = String(alert.severity ?? 'info').toUpperCase();
  return `[${severity}] ${String(alert.title ?? 'Alert')} (${String(alert.agent ?? 'default')} / ${String(alert.event ?? '')})`;
}

/** "25 alerts triggered": the group's headline. */
export function groupSummary(notification: Notification): string {
  const group = notification.group!;
  const n = group.alerts.length;
  return `${n} alert${n === 1 ? '' : 's'} ${group.type === 'alert.resolved' ? 'resolved' : 'triggered'}`;
}

/** A group as lines: the summary, then up to GROUP_LISTED alerts, then "and K more". */
export function groupLines(notification: Notification, rendering: Rendering): string[] {
  const alerts = notification.group!.alerts;
  const lines = [groupSummary(notification), ...alerts.slice(0, GROUP_LISTED).map((alert) => `• ${groupItem(alert, rendering)}`)];
  if (alerts.length > GROUP_LISTED) lines.push(`and ${alerts.length - GROUP_LISTED} more`);
  return lines;
}

/** A chat message (Slack, Discord, Telegram) in the channel's markup, at most `max` characters. */
export function chatMessage(notification: Notification, rendering: Rendering, max: number, markup: MessageMarkup): string {
  if (notification.type === 'alert.group') return clippedMessage(groupLines(notification, rendering), max, markup);
  const { title_template: title, message_template: message } = rendering.templates;
  if (title === null && message === null) return clippedMessage(messageLines(notification), max, markup);
  const view = templateView(notification.alert, rendering.context);
  const lines = messageLines(notification);
  const headline = title === null ? markup.escape(lines[0] ?? '') : renderTemplate(title, view, escaping(markup));
  const body = message === null ? lines.slice(1).map(markup.escape).join('\n') : renderTemplate(message, view, escaping(markup));
  return clippedParts(headline, body, max, markup);
}

/** An email: subject, text, and (from a message template) an HTML part. */
export interface EmailContent {
  readonly subject: string;
  readonly text: string;
  readonly html: string | null;
}

const escapeHtml: ValueEscape = (value) =>
  String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** The email's parts before the subject is cut; the message template is the HTML part (values HTML-escaped) and, values as they are, the text. */
export function emailContent(notification: Notification, rendering: Rendering): EmailContent {
  if (notification.type === 'alert.group') {
    const lines = groupLines(notification, rendering);
    return { subject: `[alertmon] ${groupSummary(notification)}`, text: lines.join('\n'), html: null };
  }
  const { title_template: title, message_template: message } = rendering.templates;
  if (title === null && message === null) return { subject: emailSubject(notification), text: messageText(notification), html: null };
  const view = templateView(notification.alert, rendering.context);
  return {
    subject: title === null ? emailSubject(notification) : renderTemplate(title, view, plainText).replace(/\s+/g, ' '),
    text: message === null ? messageText(notification) : renderTemplate(message, view, plainText),
    html: message === null ? null : renderTemplate(message, view, escapeHtml).replace(/\r?\n/g, '<br>\n'),
  };
}
