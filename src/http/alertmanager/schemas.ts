// Alertmanager's API v2 shapes, as its swagger spec writes them (the parts alertmon serves).
const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;

/** A postable alert: the body of POST …/api/v2/alerts is an array of them (checked by the domain, src/alertsources/receive.ts). */
export const postableAlertsSchema = {
  type: 'array',
  maxItems: 5000,
  items: {
    type: 'object',
    required: ['labels'],
    properties: {
      labels: { ...stringMap, description: 'At least one label; names as Prometheus writes them ([a-zA-Z_][a-zA-Z0-9_]*); empty values are dropped.' },
      annotations: stringMap,
      startsAt: { type: 'string', format: 'date-time' },
      endsAt: { type: 'string', format: 'date-time', description: 'In the past: the alert is resolved. Absent: resolve_timeout_minutes after this post.' },
      generatorURL: { type: 'string', format: 'uri' },
    },
  },
} as const;

export const alertQuerySchema = {
  type: 'object',
  properties: {
    filter: { type: 'array', items: { type: 'string' }, description: 'Alertmanager matchers (name="value", name=~"regex"…), repeated; all must match.' },
    active: { type: 'boolean', default: true },
    silenced: { type: 'boolean', default: true },
    inhibited: { type: 'boolean', default: true },
  },
} as const;

export const gettableAlertsSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['fingerprint', 'labels', 'annotations', 'startsAt', 'endsAt', 'updatedAt', 'receivers', 'status'],
    properties: {
      fingerprint: { type: 'string' },
      labels: stringMap,
      annotations: stringMap,
      startsAt: { type: 'string', format: 'date-time' },
      endsAt: { type: 'string', format: 'date-time', description: 'The end of the lease as last written.' },
      updatedAt: { type: 'string', format: 'date-time' },
      generatorURL: { type: 'string' },
      receivers: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
      status: {
        type: 'object',
        properties: {
          state: { type: 'string', enum: ['active', 'suppressed'] },
          silencedBy: { type: 'array', items: { type: 'string' } },
          inhibitedBy: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
} as const;

export const statusSchema = {
  type: 'object',
  required: ['cluster', 'config', 'uptime', 'versionInfo'],
  properties: {
    cluster: { type: 'object', properties: { status: { type: 'string' }, peers: { type: 'array', items: {} } } },
    config: { type: 'object', properties: { original: { type: 'string' } } },
    uptime: { type: 'string', format: 'date-time' },
    versionInfo: { type: 'object', additionalProperties: { type: 'string' } },
  },
} as const;

const apiMatcherSchema = {
  type: 'object',
  required: ['name', 'value', 'isRegex'],
  properties: {
    name: { type: 'string' },
    value: { type: 'string' },
    isRegex: { type: 'boolean' },
    isEqual: { type: 'boolean', default: true },
  },
} as const;

/** Alertmanager's postable silence: with `id`, an update of that silence. */
export const postableSilenceSchema = {
  type: 'object',
  required: ['matchers', 'startsAt', 'endsAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    matchers: { type: 'array', minItems: 1, maxItems: 20, items: apiMatcherSchema },
    startsAt: { type: 'string', format: 'date-time' },
    endsAt: { type: 'string', format: 'date-time' },
    createdBy: { type: 'string', maxLength: 1000 },
    comment: { type: 'string', maxLength: 1000 },
  },
} as const;

export const gettableSilenceSchema = {
  type: 'object',
  required: ['id', 'matchers', 'startsAt', 'endsAt', 'updatedAt', 'createdBy', 'comment', 'status'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    matchers: { type: 'array', items: apiMatcherSchema },
    startsAt: { type: 'string', format: 'date-time' },
    endsAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    createdBy: { type: 'string' },
    comment: { type: 'string' },
    status: { type: 'object', properties: { state: { type: 'string', enum: ['active', 'pending', 'expired'] } } },
  },
} as const;

export const silenceQuerySchema = {
  type: 'object',
  properties: { filter: { type: 'array', items: { type: 'string' }, description: 'Matchers a silence’s equality matchers must satisfy.' } },
} as const;
