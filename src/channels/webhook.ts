// Generic webhook (docs/api.md, What is sent): POST {"type", "alert"} as JSON to an absolute
// http(s) URL, with the destination's Authorization value when set, an Idempotency-Key that
// stays the same across retries and re-sends, so a receiver can drop a repeat, and the
// Standard Webhooks signature headers (webhookSignature.ts). Targets pass the SSRF guard.
import { alertmanagerBody } from './alertmanagerBody.js';
import { handoffOf } from './handoffMessage.js';
import type { Notification } from '../notifications/model.js';
import type { ErrorDetail } from '../errors.js';
import { ABBREVIATION_MARK, abbreviateSecret, decoded, secretForms, userinfoSecrets } from '../redaction.js';
import { credentialSecrets, parseHttpUrl, requireUrl } from './configRules.js';
import { BUILT_IN, type Rendering } from './compose.js';
import { postJson } from './httpPost.js';
import { failure } from './outcome.js';
import { plainText, renderBodyTemplate, renderTemplate } from './templates.js';
import { templateView } from './templateView.js';
import type { ChannelConfig, ChannelModule } from './model.js';
import { secretsInForce, signatureHeaders } from './webhookSignature.js';

/** A path segment this long may be a token (generic incoming-webhook URLs carry one in the path). */
const SECRET_SEGMENT_LENGTH = 16;

/** Shorter query values are abbreviated where the URL is shown but not searched for in free text. */
const MIN_REDACTED_LENGTH = 6;

const abbreviatedIfLong = (segment: string) => (decoded(segment).length >= SECRET_SEGMENT_LENGTH ? abbreviateSecret(decoded(segment)) : segment);

/** Each `name=value` of a query string as [name, value]; a lone item is a value (it may be a token). */
function queryItems(search: string): [string | null, string][] {
  if (search.length <= 1) return [];
  return search
    .slice(1)
    .split('&')
    .map((item) => {
      const eq = item.indexOf('=');
      return eq === -1 ? [null, item] : [item.slice(0, eq), item.slice(eq + 1)];
    });
}

/**
 * The URL as responses, attempts and logs show it: the password, every query-string value and
 * every path segment of 16 or more characters abbreviated (docs/api.md, Secrets). Built by
 * hand, not with URL.toString, so the "…" marks are not percent-encoded.
 */
function presentWebhookUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return abbreviateSecret(url);
  }
  // Userinfo is refused in new URLs (userinfoProblem); one stored before shows its secret part abbreviated.
  const password = parsed.password === '' ? '' : `:${abbreviateSecret(decoded(parsed.password))}`;
  const username = password === '' && parsed.username !== '' ? abbreviateSecret(decoded(parsed.username)) : parsed.username;
  const userinfo = username === '' && password === '' ? '' : `${username}${password}@`;
  const path = parsed.pathname.split('/').map(abbreviatedIfLong).join('/');
  const items = queryItems(parsed.search).map(([name, value]) => {
    const shown = value === '' ? '' : abbreviateSecret(decoded(value));
    return name === null ? shown : `${name}=${shown}`;
  });
  const query = items.length === 0 ? '' : `?${items.join('&')}`;
  const fragment = parsed.hash === '' ? '' : `#${abbreviatedIfLong(parsed.hash.slice(1))}`;
  const shown = `${parsed.protocol}//${userinfo}${parsed.host}${path}${query}${fragment}`;
  return shown.includes(ABBREVIATION_MARK) ? shown : url;
}

/** The secret parts of the URL (what presentWebhookUrl abbreviates), as written and decoded. */
function urlSecrets(url: string | null): string[] {
  if (url === null) return [];
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url]; // unparsable: all of it is treated as secret
  }
  // A query value of a few characters (page=2) is no secret, and replacing it everywhere would garble the message.
  const values = queryItems(parsed.search)
    .map(([, value]) => value)
    .filter((value) => decoded(value).length >= MIN_REDACTED_LENGTH);
  const longSegments = parsed.pathname.split('/').filter((segment) => decoded(segment).length >= SECRET_SEGMENT_LENGTH);
  const parts = [...longSegments, ...values].filter((part) => part !== '').flatMap((part) => [part, decoded(part)]);
  return [...userinfoSecrets(url), ...parts];
}

/**
 * A URL's `user:password@` is refused: a webhook's credential is credentials.authorization,
 * one place to keep, abbreviate and send it. (HTTP clients turn userinfo into a Basic header of
 * their own, which replaced the stored authorization.)
 */
function userinfoProblem(url: URL): ErrorDetail[] {
  if (url.username === '' && url.password === '') return [];
  return [
    {
      path: '/url',
      message: 'must not carry credentials (user:password@); send them as credentials.authorization: "Basic " and the base64 of user:password',
    },
  ];
}

/**
 * Where a request goes and the Authorization it carries: the URL without userinfo, and
 * credentials.authorization; a destination stored with userinfo before it was refused, and no
 * authorization, sends its userinfo as Basic, as it always did.
 */
function requestTarget(config: ChannelConfig): { url: string; authorization: string | null } {
  const url = new URL(config.url!);
  const stored = config.credentials?.authorization;
  const legacy =
    url.username === '' && url.password === '' ? null : `Basic ${Buffer.from(`${decoded(url.username)}:${decoded(url.password)}`).toString('base64')}`;
  url.username = '';
  url.password = '';
  return { url: url.toString(), authorization: typeof stored === 'string' && stored !== '' ? stored : legacy };
}

/**
 * The JSON body (docs/api.md, What is sent): {"type", "alert"}, with "title" and "message" from
 * the destination's templates when it has them; its body_template rendered instead when set;
 * for a group {"type": "alert.group", "group_type", "alerts", "count"}. An Error when the body
 * template does not render a JSON object for this alert.
 */
export function webhookBody(notification: Notification, rendering: Rendering): Record<string, unknown> | Error {
  if (notification.type === 'alert.group') {
    const { type, alerts } = notification.group!;
    // An alert as the API shows it: a notification's internal fields (an acknowledge token) never go out as they are.
    const shown = alerts.map((alert) => Object.fromEntries(Object.entries(alert).filter(([name]) => name !== 'ack_token')));
    return { type: 'alert.group', group_type: type, alerts: shown, count: alerts.length };
  }
  // A handoff notice names no alert: {"type": "schedule.handoff", "handoff": {…}}.
  const handoff = handoffOf(notification);
  if (handoff !== null) return { type: notification.type, handoff };
  // An escalation step's position travels beside the alert: {"type": "alert.escalated", "alert": {…}, "escalation": {step, of, round}}.
  const { escalation, ...alert } = notification.alert;
  const built = { type: notification.type, alert, ...(escalation ? { escalation } : {}) };
  const { title_template: title, message_template: message, body_template: body } = rendering.templates;
  if (title === null && message === null && body === null) return built;
  const view = templateView(notification.alert, rendering.context);
  if (body !== null) return renderBodyTemplate(body, view);
  return {
    ...built,
    ...(title === null ? {} : { title: renderTemplate(title, view, plainText) }),
    ...(message === null ? {} : { message: renderTemplate(message, view, plainText) }),
  };
}

export const webhookChannel: ChannelModule = {
  configProblems(config) {
    const missing = requireUrl(config, 'the absolute http(s) URL to POST to');
    const problems: ErrorDetail[] = [...missing];
    const parsed = missing.length === 0 ? parseHttpUrl(config.url!) : null;
    if (missing.length === 0 && parsed === null) problems.push({ path: '/url', message: 'must be an absolute http:// or https:// URL' });
    if (parsed !== null) problems.push(...userinfoProblem(parsed));
    const credentials = config.credentials;
    if (credentials !== null) {
      for (const name of ['bot_token', 'chat_id'] as const) {
        if (credentials[name] !== undefined) problems.push({ path: `/credentials/${name}`, message: 'is not a webhook credential' });
      }
      if (credentials.authorization !== undefined && (typeof credentials.authorization !== 'string' || !/\S/.test(credentials.authorization))) {
        problems.push({ path: '/credentials/authorization', message: 'must be the Authorization header value to send' });
      }
    }
    return problems;
  },

  signsRequests: true,
  secretCredentials: ['authorization'],
  presentUrl: presentWebhookUrl,
  secretsOf: (config) => [...urlSecrets(config.url), ...credentialSecrets(config, webhookChannel.secretCredentials)],

  target(config) {
    return presentWebhookUrl(config.url ?? '');
  },

  async send({ destination, notification, settings, rendering = BUILT_IN }) {
    const { url, authorization } = requestTarget(destination);
    const signing = secretsInForce(destination, Date.now());
    const body =
      // A handoff notice is no alert: it keeps alertmon's body whatever the format.
      destination.format === 'alertmanager' && handoffOf(notification) === null
        ? alertmanagerBody(notification, {
            externalUrl: settings.links.publicUrl,
            receiver: 'alertmon',
            description: rendering.context.policy?.description ?? null,
          })
        : webhookBody(notification, rendering);
    if (body instanceof Error) return failure('final', 'template_error', `not sent: the body_template ${body.message} for this alert`);
    return postJson(url, body, settings, {
      guard: true,
      secrets: [...webhookChannel.secretsOf(destination), ...(authorization === null ? [] : secretForms(authorization)), ...signing],
      headers: { 'idempotency-key': notification.id, ...(authorization === null ? {} : { authorization }) },
      // Signed at the moment of each try, over the exact bytes sent.
      headersForBody: (body) => signatureHeaders(notification.id, body, signing, Date.now()),
    });
  },
};
