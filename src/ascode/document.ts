// The alerting-as-code document (docs/as-code.md): a workspace's configuration as one object, each
// object without its ids and timestamps, referring to the others by key, secrets left out.
// Its JSON Schema is assembled from each resource's own (src/http/config/schemas.ts); this
// module turns stored objects into document objects and back, and holds what both the plan
// and the apply need: the kinds in the order they depend on each other, and their defaults.
import { channelModule } from '../channels/registry.js';
import type { Destination } from '../destinations/model.js';
import type { EscalationPolicy } from '../escalation/model.js';
import type { AlertSource } from '../alertsources/model.js';
import { ALERT_SOURCE_DEFAULTS } from '../alertsources/model.js';
import { inhibitRulesAsWritten } from '../alertsources/inhibitRules.js';
import { matcherText } from '../matchers/parse.js';
import { layerAsWritten } from '../oncall/checks.js';
import type { Person, Schedule } from '../oncall/model.js';
import { POLICY_DEFAULTS, POLICY_FIELDS, type Policy, type PolicyFields } from '../policies/model.js';
import type { Silence } from '../silences/model.js';
import type { Dimension } from '../dimensions/model.js';
import type { DimensionDoc } from './dimensions.js';
import type { KeyedKind } from './keys.js';

/** The document format's version: `version` of every document. */
export const DOCUMENT_VERSION = 1;

/**
 * The kinds of a document, in the order an apply creates and updates them (each refers only
 * to kinds before it, but a destination's policies and alert sources, set once those exist);
 * deletes go the other way. `dimensions` (by event name, no key: dimensions.ts) refer to
 * nothing and nothing refers to them: they are planned and applied beside these.
 */
export const DOCUMENT_KINDS = [
  'destinations',
  'people',
  'schedules',
  'escalation_policies',
  'alert_sources',
  'policies',
  'silences',
] as const satisfies readonly KeyedKind[];

export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

/** One object of a document: its key, and its fields as JSON values. */
export type DocObject = { readonly key: string } & Readonly<Record<string, unknown>>;

export type ConfigDocument = { readonly version: number } & { readonly [K in DocumentKind]?: readonly DocObject[] } & {
  readonly dimensions?: readonly DimensionDoc[];
};

/** An event definition as a document names it. */
export interface EventRef {
  readonly agent: string;
  readonly event: string;
}

/** Every configuration object of a workspace, as stored. */
export interface WorkspaceState {
  readonly destinations: readonly Destination[];
  readonly people: readonly Person[];
  readonly schedules: readonly Schedule[];
  readonly escalation_policies: readonly EscalationPolicy[];
  readonly alert_sources: readonly AlertSource[];
  readonly policies: readonly Policy[];
  readonly silences: readonly Silence[];
  readonly dimensions: readonly Dimension[];
  /** event_id → its (agent, event). */
  readonly events: ReadonlyMap<string, EventRef>;
}

/** The id column of each kind's stored objects. */
export const ID_FIELD: Readonly<Record<DocumentKind, string>> = {
  destinations: 'destination_id',
  people: 'person_id',
  schedules: 'schedule_id',
  escalation_policies: 'escalation_policy_id',
  alert_sources: 'alert_source_id',
  policies: 'policy_id',
  silences: 'silence_id',
};

/** The field a key is made from when an object has none (a destination: its channel). */
const NAME_OF: Readonly<Record<DocumentKind, (o: never) => string>> = {
  destinations: (d: Destination) => d.channel,
  people: (p: Person) => p.name,
  schedules: (s: Schedule) => s.name,
  escalation_policies: (p: EscalationPolicy) => p.name,
  alert_sources: (s: AlertSource) => s.name,
  policies: (p: Policy) => p.title,
  silences: (s: Silence) => (s.comment === '' ? 'silence' : s.comment),
};

/** A key made from a name: lower case, runs of other characters as one -, at most 56 characters (room for a -N suffix). */
export function keyFromName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 56)
    .replace(/-+$/, '');
  return slug === '' ? 'object' : slug;
}

/**
 * Every object's key: its own, or one made from its name, unique in its kind. Made keys are
 * given oldest first and never take a stored key, so the same state always gets the same
 * keys (an export, then a plan of it, match object for object).
 */
export function keysOf(kind: DocumentKind, objects: readonly { key: string | null; created_at: Date }[]): Map<string, string> {
  const idField = ID_FIELD[kind];
  const idOf = (o: object) => (o as Record<string, string>)[idField]!;
  const taken = new Set(objects.flatMap((o) => (o.key === null ? [] : [o.key])));
  const keys = new Map<string, string>();
  const oldestFirst = [...objects].sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || idOf(a).localeCompare(idOf(b)));
  for (const o of oldestFirst) {
    if (o.key !== null) {
      keys.set(idOf(o), o.key);
      continue;
    }
    const base = keyFromName(NAME_OF[kind](o as never));
    let key = base;
    for (let n = 2; taken.has(key); n++) key = `${base}-${n}`;
    taken.add(key);
    keys.set(idOf(o), key);
  }
  return keys;
}

/** Each kind's id → key. */
export type KeyMaps = Readonly<Record<DocumentKind, ReadonlyMap<string, string>>>;

export function keyMapsOf(state: WorkspaceState): KeyMaps {
  return Object.fromEntries(DOCUMENT_KINDS.map((kind) => [kind, keysOf(kind, state[kind] as never)])) as unknown as KeyMaps;
}

const refs = (map: ReadonlyMap<string, string>, ids: readonly string[]) => ids.map((id) => map.get(id) ?? id);
const ref = (map: ReadonlyMap<string, string>, id: string | null) => (id === null ? null : (map.get(id) ?? id));

/** A destination's URL when nothing of it is secret (shown as stored); absent otherwise: a document never holds a secret. */
function publicUrl(d: Destination): string | undefined {
  if (d.url === null) return undefined;
  return channelModule(d.channel).presentUrl(d.url) === d.url ? d.url : undefined;
}

/** The document's names of a policy's fields that name another object by id (each field is the policy model's own). */
const DOC_FIELD_OF_POLICY: Partial<Record<keyof PolicyFields, string>> = { event_id: 'event_definition', escalation_policy_id: 'escalation_policy' };

/** The document objects of a state: every field, ids as keys, secrets left out. */
export function exportObjects(state: WorkspaceState, keys: KeyMaps): Record<DocumentKind, DocObject[]> {
  const policyIds = new Set(state.policies.map((p) => p.policy_id));
  const byKey = (a: DocObject, b: DocObject) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  const out: Record<DocumentKind, DocObject[]> = {
    destinations: state.destinations.map((d) => {
      const url = publicUrl(d);
      return {
        key: keys.destinations.get(d.destination_id)!,
        channel: d.channel,
        ...(url === undefined ? {} : { url }),
        scope: d.scope,
        policies: refs(
          keys.policies,
          d.policy_ids.filter((id) => policyIds.has(id)),
        ).sort(),
        alert_sources: refs(
          keys.alert_sources,
          d.policy_ids.filter((id) => !policyIds.has(id)),
        ).sort(),
        enabled: d.enabled,
        group_window_seconds: d.group_window_seconds,
        title_template: d.title_template,
        message_template: d.message_template,
        body_template: d.body_template,
        format: d.format,
      };
    }),
    people: state.people.map((p) => ({
      key: keys.people.get(p.person_id)!,
      name: p.name,
      timezone: p.timezone,
      destinations: refs(keys.destinations, p.destination_ids),
    })),
    schedules: state.schedules.map((s) => ({
      key: keys.schedules.get(s.schedule_id)!,
      name: s.name,
      timezone: s.timezone,
      notify_handoffs: s.notify_handoffs,
      layers: s.layers.map((l) => layerAsWritten(l, (ids) => refs(keys.people, ids))),
    })),
    escalation_policies: state.escalation_policies.map((p) => ({
      key: keys.escalation_policies.get(p.escalation_policy_id)!,
      name: p.name,
      repeat: p.repeat,
      steps: p.steps.map((s) => ({
        after_minutes: s.after_minutes,
        destinations: refs(keys.destinations, s.destination_ids),
        schedules: refs(keys.schedules, s.schedule_ids),
        people: refs(keys.people, s.person_ids),
      })),
    })),
    alert_sources: state.alert_sources.map((s) => ({
      key: keys.alert_sources.get(s.alert_source_id)!,
      name: s.name,
      severity_label: s.severity_label,
      default_severity: s.default_severity,
      escalation_policy: ref(keys.escalation_policies, s.escalation_policy_id),
      renotify_minutes: s.renotify_minutes,
      resolve_timeout_minutes: s.resolve_timeout_minutes,
      inhibit_rules: inhibitRulesAsWritten(s.inhibit_rules),
    })),
    policies: state.policies.map((p) => {
      const event = p.event_id === null ? null : (state.events.get(p.event_id) ?? null);
      const fields = Object.fromEntries(POLICY_FIELDS.map((f) => [DOC_FIELD_OF_POLICY[f] ?? f, p[f]]));
      return {
        key: keys.policies.get(p.policy_id)!,
        title: p.title,
        ...fields,
        event_definition: event === null ? null : { agent: event.agent, event: event.event },
        agents: [...p.agents],
        group_by: [...p.group_by],
        escalation_policy: ref(keys.escalation_policies, p.escalation_policy_id),
      };
    }),
    silences: state.silences.map((s) => ({
      key: keys.silences.get(s.silence_id)!,
      policies: s.policy_ids === null ? null : refs(keys.policies, s.policy_ids),
      matchers: s.matchers === null ? null : s.matchers.map(matcherText),
      starts_at: s.starts_at.toISOString(),
      ends_at: s.ends_at.toISOString(),
      comment: s.comment,
      recurrence:
        s.recurrence === null ? null : { timezone: s.recurrence.timezone, days: [...s.recurrence.days], start: s.recurrence.start, end: s.recurrence.end },
    })),
  };
  for (const kind of DOCUMENT_KINDS) out[kind].sort(byKey);
  return out;
}

/**
 * What a field left out of a document object means: the value a create would give it. A
 * destination's url and credentials have none: left out, the stored secrets are kept.
 */
export const DOC_DEFAULTS: Readonly<Record<DocumentKind, Readonly<Record<string, unknown>>>> = {
  destinations: {
    scope: 'all',
    policies: [],
    alert_sources: [],
    enabled: true,
    group_window_seconds: 0,
    title_template: null,
    message_template: null,
    body_template: null,
    format: 'alertmon',
  },
  people: { timezone: 'UTC' },
  schedules: { notify_handoffs: false },
  escalation_policies: { repeat: 0 },
  alert_sources: {
    severity_label: ALERT_SOURCE_DEFAULTS.severity_label,
    default_severity: ALERT_SOURCE_DEFAULTS.default_severity,
    escalation_policy: null,
    renotify_minutes: ALERT_SOURCE_DEFAULTS.renotify_minutes,
    resolve_timeout_minutes: ALERT_SOURCE_DEFAULTS.resolve_timeout_minutes,
    inhibit_rules: [],
  },
  // A create's defaults (src/policies/model.ts), ids named as the document names them; a fleet policy's timezone: withNestedDefaults.
  policies: Object.fromEntries(
    Object.entries(POLICY_DEFAULTS)
      .filter(([f]) => f !== 'timezone')
      .map(([f, v]) => [DOC_FIELD_OF_POLICY[f as keyof PolicyFields] ?? f, v]),
  ),
  silences: { policies: null, matchers: null, comment: '', recurrence: null },
};

/** Fields of a layer or a rule left out of a document, as a create fills them in. */
function withNestedDefaults(kind: DocumentKind, o: Record<string, unknown>): Record<string, unknown> {
  if (kind === 'schedules' && Array.isArray(o.layers)) {
    return {
      ...o,
      layers: o.layers.map((l: Record<string, unknown>) => ({
        ...l,
        start: typeof l.start === 'string' ? new Date(l.start).toISOString() : l.start,
        rotation: { length: 1, handoff: null, ...(l.rotation as object) },
        restrict_to: l.restrict_to ?? null,
      })),
    };
  }
  if (kind === 'escalation_policies' && Array.isArray(o.steps)) {
    return { ...o, steps: o.steps.map((step: Record<string, unknown>) => ({ destinations: [], schedules: [], people: [], ...step })) };
  }
  if (kind === 'alert_sources' && Array.isArray(o.inhibit_rules)) {
    return { ...o, inhibit_rules: o.inhibit_rules.map((r: Record<string, unknown>) => ({ equal: [], ...r })) };
  }
  if (kind === 'policies' && o.event !== null && o.event !== undefined && (o.timezone === undefined || o.timezone === null)) return { ...o, timezone: 'UTC' };
  if (kind === 'policies' && (o.event === null || o.event === undefined) && o.timezone === undefined) return { ...o, timezone: null };
  if (kind === 'silences' && typeof o.ends_at === 'string') {
    return { ...o, ends_at: new Date(o.ends_at).toISOString(), ...(typeof o.starts_at === 'string' ? { starts_at: new Date(o.starts_at).toISOString() } : {}) };
  }
  if (kind === 'destinations' && Array.isArray(o.policies) && Array.isArray(o.alert_sources)) {
    return { ...o, policies: [...o.policies].sort(), alert_sources: [...o.alert_sources].sort() };
  }
  return o;
}

/** A document object with its defaults filled in: what it asks the stored object to be. */
export function normalised(kind: DocumentKind, o: DocObject): DocObject {
  return withNestedDefaults(kind, { ...DOC_DEFAULTS[kind], ...o }) as DocObject;
}

/**
 * Whether two JSON values are equal whatever the order of their objects' keys (a key whose
 * value is undefined is no key), compared without writing them out as text.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameJson(item ?? null, other[i] ?? null));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x).filter((k) => x[k] !== undefined);
  if (keys.length !== Object.keys(y).filter((k) => y[k] !== undefined).length) return false;
  return keys.every((k) => y[k] !== undefined && sameJson(x[k], y[k]));
}
