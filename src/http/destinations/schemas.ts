import { MAX_TEMPLATE_LENGTH } from '../../channels/templates.js';
import { CHANNELS, MAX_GROUP_WINDOW_SECONDS, SCOPES } from '../../destinations/model.js';
import { wholeListQueryProperties } from '../params.js';
import { keyProperty } from '../keySchema.js';

const writable = {
  key: keyProperty,
  channel: { type: 'string', enum: CHANNELS, description: 'The provider type. sms is not supported.' },
  url: {
    type: ['string', 'null'],
    maxLength: 2048,
    description:
      'slack/discord: the incoming webhook URL; webhook: the absolute http(s) URL to POST to, without user:password@ (400: use credentials.authorization); email: user@host or mailto:user@host (absent: the workspace owner); telegram: none.',
  },
  credentials: {
    type: ['object', 'null'],
    additionalProperties: false,
    description:
      'telegram: bot_token and chat_id (required); webhook: optional authorization (sent as the Authorization header; basic auth: "Basic " + base64 of user:password); others: none. Secrets read back abbreviated.',
    properties: {
      bot_token: { type: 'string', maxLength: 256 },
      chat_id: { type: ['string', 'integer'] },
      authorization: { type: 'string', maxLength: 4096 },
    },
  },
  scope: {
    type: 'string',
    enum: SCOPES,
    description: 'all (default): every alert of the workspace; policies: alerts of the policies and alert sources in policy_ids.',
  },
  policy_ids: {
    type: 'array',
    maxItems: 1000,
    items: { type: 'string', format: 'uuid' },
    description: 'With scope policies: the policies and alert sources (each of the workspace, else 400) whose alerts this destination gets.',
  },
  enabled: { type: 'boolean', description: 'Only enabled destinations receive real alerts (default true).' },
  group_window_seconds: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_GROUP_WINDOW_SECONDS,
    description:
      '0 (default): each notification is its own message. N: the first alert.triggered (or alert.resolved) after a quiet spell is sent at once, and every further one of the same type within N seconds of it is held and sent at the end of the window as one alert.group message.',
  },
  title_template: {
    type: ['string', 'null'],
    maxLength: MAX_TEMPLATE_LENGTH,
    description:
      'Mustache template of the message title (chat: the bold first line; email: the subject; webhook: a "title" field). Values are escaped for the channel. Null or empty: the built-in title.',
  },
  message_template: {
    type: ['string', 'null'],
    maxLength: MAX_TEMPLATE_LENGTH,
    description:
      'Mustache template of the message text under the title (email: the HTML part, values HTML-escaped, and the text part; webhook: a "message" field). Null or empty: the built-in text.',
  },
  body_template: {
    type: ['string', 'null'],
    maxLength: MAX_TEMPLATE_LENGTH,
    description:
      'Webhook only: Mustache template of the whole JSON body, which must render to a JSON object. Values are escaped as JSON string contents (put text variables inside quotes); a null value renders as null. Null or empty: the built-in body.',
  },
  format: {
    type: 'string',
    enum: ['alertmon', 'alertmanager'],
    description:
      'Webhook only: "alertmon" (default) sends {"type", "alert"}; "alertmanager" sends Alertmanager’s webhook v4 body (version "4", status, alerts with labels and annotations…), a group as one body with several alerts; not with body_template.',
  },
} as const;

export const createDestinationSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['channel'],
  // The defaults are documented (the console's form starts from them); the route applies them.
  properties: {
    ...writable,
    scope: { ...writable.scope, default: 'all' },
    enabled: { ...writable.enabled, default: true },
    group_window_seconds: { ...writable.group_window_seconds, default: 0 },
  },
} as const;

/** Any subset of the create fields; read-only fields a client read back are accepted and ignored. */
export const updateDestinationSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...writable,
    destination_id: {},
    workspace_id: {},
    user_id: {},
    created_at: {},
    updated_at: {},
    last_delivered_at: {},
    last_error: {},
    signing_secret: {},
    previous_signing_secret_expires_at: {},
  },
} as const;

export const listDestinationsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: wholeListQueryProperties,
} as const;

const timestamp = { type: 'string', format: 'date-time' } as const;
const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' } as const;

export const destinationResponseSchema = {
  type: 'object',
  required: [
    'destination_id',
    'key',
    'channel',
    'url',
    'credentials',
    'scope',
    'policy_ids',
    'enabled',
    'created_at',
    'updated_at',
    'last_delivered_at',
    'last_error',
    'signing_secret',
    'previous_signing_secret_expires_at',
    'group_window_seconds',
    'title_template',
    'message_template',
    'body_template',
    'format',
  ],
  properties: {
    destination_id: { type: 'string', format: 'uuid' },
    key: keyProperty,
    channel: { type: 'string', enum: CHANNELS },
    url: {
      type: ['string', 'null'],
      description:
        'Secret parts abbreviated: the Slack/Discord token segment; in a webhook URL the password, every query value and every path segment of 16+ characters.',
    },
    credentials: { type: ['object', 'null'], description: 'bot_token and authorization abbreviated (first 4 characters then …).' },
    scope: { type: 'string', enum: SCOPES },
    policy_ids: { type: 'array', items: { type: 'string', format: 'uuid' } },
    enabled: { type: 'boolean' },
    created_at: timestamp,
    updated_at: timestamp,
    last_delivered_at: nullableTimestamp,
    last_error: { type: ['string', 'null'] },
    signing_secret: {
      type: ['string', 'null'],
      description:
        'Webhooks: the Standard Webhooks signing secret (whsec_…), in full only in the create and rotate-secret answers, else abbreviated; null for other channels.',
    },
    previous_signing_secret_expires_at: {
      ...nullableTimestamp,
      description: 'After a rotation, until when the previous secret still signs beside the new one; null otherwise.',
    },
    group_window_seconds: { type: 'integer', minimum: 0, maximum: MAX_GROUP_WINDOW_SECONDS },
    title_template: { type: ['string', 'null'] },
    message_template: { type: ['string', 'null'] },
    body_template: { type: ['string', 'null'] },
    format: { type: 'string', enum: ['alertmon', 'alertmanager'] },
  },
} as const;

export const testSendResponseSchema = {
  type: 'object',
  required: ['alert_id', 'destination_id', 'status'],
  properties: {
    alert_id: { type: 'string', format: 'uuid', description: 'The synthetic alert id: read the attempt at /v1.0/alerts/{alert_id}/deliveries?kind=test.' },
    destination_id: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: ['sent'] },
  },
} as const;
