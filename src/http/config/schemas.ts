// The alerting-as-code document's JSON Schema (docs/as-code.md), assembled from each resource's
// own create schema: the same fields and bounds, ids replaced by keys (references by key,
// an event definition by its agent and event), ids and timestamps left out. Served in the
// OpenAPI document as the body of POST /v1.0/config/plan and /apply.
import { KEY_PATTERN } from '../../ascode/keys.js';
import { MAX_EVENT_NAME_LENGTH } from '../../dimensions/model.js';
import { putDimensionSchema } from '../dimensions/schemas.js';
import { createAlertSourceSchema } from '../alert-sources/schemas.js';
import { createDestinationSchema } from '../destinations/schemas.js';
import { createEscalationPolicySchema } from '../escalation-policies/schemas.js';
import { createPersonSchema } from '../people/schemas.js';
import { createPolicySchema } from '../policies/schemas.js';
import { createScheduleSchema } from '../schedules/schemas.js';
import { createSilenceSchema } from '../silences/schemas.js';

/** Objects of one kind a document may hold (a workspace's limits are lower, but for policies). */
export const MAX_OBJECTS_PER_KIND = { policies: 10_000, default: 1000 } as const;

const keyRef = (kind: string) => ({ type: 'string', pattern: KEY_PATTERN, description: `The key of ${kind} of the document (or of the workspace).` }) as const;
const keyRefs = (kind: string, bounds: { minItems?: number; maxItems?: number } = {}) => ({ type: 'array', ...bounds, items: keyRef(kind) }) as const;
const ownKey = { type: 'string', pattern: KEY_PATTERN, description: 'Its key: 1–64 characters of a-z, 0-9, _ and -, unique in its kind.' } as const;

const omit = <T extends Record<string, unknown>, K extends string>(o: T, ...names: K[]): Omit<T, K> =>
  Object.fromEntries(Object.entries(o).filter(([name]) => !(names as string[]).includes(name))) as Omit<T, K>;

const { policy_ids: _pi, key: _dk, ...destinationFields } = createDestinationSchema.properties;
const destinationItem = {
  type: 'object',
  additionalProperties: false,
  required: ['key', 'channel'],
  properties: {
    key: ownKey,
    ...destinationFields,
    url: {
      ...destinationFields.url,
      description: `${destinationFields.url.description} Never exported when any part of it is secret (Slack, Discord, a webhook with a token in it); left out, the stored one is kept. May be {"env": "NAME"} in a file the command line reads.`,
    },
    credentials: {
      ...destinationFields.credentials,
      description: `${destinationFields.credentials.description} Never exported; left out, the stored ones are kept.`,
    },
    policies: keyRefs('a policy'),
    alert_sources: keyRefs('an alert source'),
  },
} as const;

const { destination_ids: personDestinations, key: _pk, ...personFields } = createPersonSchema.properties;
const personItem = {
  type: 'object',
  additionalProperties: false,
  required: ['key', 'name', 'destinations'],
  properties: {
    key: ownKey,
    ...personFields,
    destinations: keyRefs('a destination', { minItems: personDestinations.minItems, maxItems: personDestinations.maxItems }),
  },
} as const;

const { key: _sk, ...scheduleFields } = createScheduleSchema.properties;
const layerItem = scheduleFields.layers.items;
const scheduleItem = {
  type: 'object',
  additionalProperties: false,
  required: ['key', ...createScheduleSchema.required],
  properties: {
    key: ownKey,
    ...scheduleFields,
    layers: {
      ...scheduleFields.layers,
      items: {
        ...layerItem,
        properties: {
          ...layerItem.properties,
          members: keyRefs('a person', { minItems: layerItem.properties.members.minItems, maxItems: layerItem.properties.members.maxItems }),
        },
      },
    },
  },
} as const;

const { key: _ek, ...escalationFields } = createEscalationPolicySchema.properties;
const stepItem = escalationFields.steps.items;
const escalationItem = {
  type: 'object',
  additionalProperties: false,
  required: ['key', ...createEscalationPolicySchema.required],
  properties: {
    key: ownKey,
    ...escalationFields,
    steps: {
      ...escalationFields.steps,
      items: {
        ...stepItem,
        required: stepItem.required,
        properties: {
          after_minutes: stepItem.properties.after_minutes,
          destinations: keyRefs('a destination', {
            minItems: stepItem.properties.destination_ids.minItems,
            maxItems: stepItem.properties.destination_ids.maxItems,
          }),
          schedules: keyRefs('a schedule (whoever is on call in it is paged)', { maxItems: stepItem.properties.schedule_ids.maxItems }),
          people: keyRefs('a person', { maxItems: stepItem.properties.person_ids.maxItems }),
        },
      },
    },
  },
} as const;

const nullableKeyRef = (kind: string) => ({ type: ['string', 'null'], pattern: KEY_PATTERN, description: `The key of ${kind}, or null.` }) as const;

const alertSourceItem = {
  type: 'object',
  additionalProperties: false,
  required: ['key', ...createAlertSourceSchema.required],
  properties: {
    key: ownKey,
    ...omit(createAlertSourceSchema.properties, 'key', 'escalation_policy_id'),
    escalation_policy: nullableKeyRef('an escalation policy'),
  },
} as const;

const policyItem = {
  type: 'object',
  additionalProperties: false,
  required: ['key', ...createPolicySchema.required],
  properties: {
    key: ownKey,
    ...omit(createPolicySchema.properties, 'key', 'event_id', 'escalation_policy_id'),
    event_definition: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['agent', 'event'],
      properties: { agent: { type: 'string', minLength: 1, maxLength: 200 }, event: { type: 'string', minLength: 1, maxLength: 200 } },
      description: 'The event definition watched, by its agent and event name (a policy on one definition); null for a fleet policy (event).',
    },
    escalation_policy: nullableKeyRef('an escalation policy'),
  },
} as const;

const silenceItem = {
  type: 'object',
  additionalProperties: false,
  required: ['key', ...createSilenceSchema.required],
  properties: {
    key: ownKey,
    ...omit(createSilenceSchema.properties, 'key', 'policy_ids'),
    policies: { type: ['array', 'null'], items: keyRef('a policy'), description: 'The policies it covers, by key; null: every policy of the workspace.' },
  },
} as const;

const list = (item: object, max: number, description: string) => ({ type: 'array', maxItems: max, items: item, description }) as const;
const D = MAX_OBJECTS_PER_KIND.default;

/** A declaration (PUT /v1.0/dimensions/:event): its event name is its identity (no key); the domain checks both fields again with its own messages. */
const dimensionItem = {
  type: 'object',
  additionalProperties: false,
  required: ['event', 'keys'],
  properties: {
    event: { type: 'string', minLength: 1, maxLength: MAX_EVENT_NAME_LENGTH, description: 'The records’ event name; unique in the document.' },
    keys: putDimensionSchema.properties.keys,
  },
} as const;

export const configDocumentSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['version'],
  description:
    'A workspace’s alerting configuration (GET /v1.0/config): objects by key, without ids or timestamps, secrets left out. A kind left out of the document is read as empty: its objects are unmanaged (or, with prune, deleted).',
  properties: {
    version: { const: 1, description: 'The document format: 1.' },
    expected_version: {
      type: 'string',
      maxLength: 64,
      description: 'Apply only: the version a plan answered; 409 config_changed when the configuration changed since.',
    },
    dimensions: list(dimensionItem, D, 'Dimensions of event names (PUT /v1.0/dimensions/:event), by event name.'),
    destinations: list(destinationItem, D, 'Destinations (POST /v1.0/destinations), by key.'),
    people: list(personItem, D, 'People (POST /v1.0/people).'),
    schedules: list(scheduleItem, D, 'On-call schedules (POST /v1.0/schedules); layer members by person key.'),
    escalation_policies: list(escalationItem, D, 'Escalation policies (POST /v1.0/escalation-policies); steps name destinations, schedules and people by key.'),
    alert_sources: list(alertSourceItem, D, 'Alert sources (POST /v1.0/alert-sources).'),
    policies: list(policyItem, MAX_OBJECTS_PER_KIND.policies, 'Policies (POST /v1.0/policies).'),
    silences: list(silenceItem, D, 'Silences (POST /v1.0/silences).'),
  },
} as const;

export const planQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    prune: { type: 'boolean', default: false, description: 'Delete the workspace’s objects the document does not have (else they are listed as unmanaged).' },
  },
} as const;

const kindEnum = { type: 'string', enum: ['destinations', 'people', 'schedules', 'escalation_policies', 'alert_sources', 'policies', 'silences'] } as const;
/** A plan's kinds: dimensions too, their key being the event name. */
const planKindEnum = { type: 'string', enum: ['dimensions', ...kindEnum.enum] } as const;

export const planResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['version', 'changes', 'unmanaged'],
  properties: {
    version: { type: 'string', description: 'The configuration’s version the plan was made at (plan), or is at after the changes (apply).' },
    changes: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'key', 'action', 'fields'],
        properties: {
          kind: planKindEnum,
          key: { type: 'string', description: 'The object’s key (a dimension’s: its event name).' },
          action: { type: 'string', enum: ['create', 'update', 'delete'] },
          fields: { type: 'array', items: { type: 'string' }, description: 'The fields that change.' },
        },
      },
    },
    unmanaged: {
      type: 'array',
      description: 'Objects of the workspace the document does not have, left as they are (destinations always: they are never deleted).',
      items: { type: 'object', additionalProperties: false, required: ['kind', 'key'], properties: { kind: planKindEnum, key: { type: 'string' } } },
    },
  },
} as const;

export const managedQuerySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'id'],
  properties: {
    kind: planKindEnum,
    id: {
      type: 'string',
      minLength: 1,
      maxLength: 1024,
      description: 'The object’s id (policy_id, destination_id, …), a UUID; for dimensions, the event name.',
    },
  },
} as const;

export const managedResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['managed'],
  properties: {
    managed: { type: 'boolean', description: 'Whether the last document applied to the workspace had the object.' },
    key: { type: ['string', 'null'], description: 'Its key (when managed).' },
    applied_at: { type: 'string', format: 'date-time', description: 'When that document was applied (when managed).' },
    updated_at: { type: 'string', format: 'date-time', description: 'When the object was last changed (when managed).' },
    changed: {
      type: 'boolean',
      description: 'Changed in the console or through the API since the apply (when managed): the next apply of the file will overwrite it.',
    },
  },
} as const;
