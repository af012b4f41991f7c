// Export and plan of a workspace's alerting configuration (docs/as-code.md); the apply is apply.ts.
//
// A plan compares a document with the stored state object by object (matched by key) and
// field by field: a field the document leaves out keeps its default, except a destination's
// url and credentials (secrets, never exported: left out, the stored ones are kept) and a
// silence's starts_at.
import { createHash } from 'node:crypto';
import { AppError, validationFailed, type ErrorDetail } from '../errors.js';
import { listDimensionRows } from '../dimensions/store.js';
import type { DimensionsDeps } from '../dimensions/operations.js';
import { listAlertSources } from '../alertsources/operations.js';
import { listDestinations, type ChannelRules } from '../destinations/operations.js';
import { listEscalationPolicies } from '../escalation/operations.js';
import type { TimezoneCatalog } from '../events/timezones.js';
import { listPeople, type OnCallDeps } from '../oncall/people.js';
import { listSchedules } from '../oncall/schedules.js';
import { listPolicies } from '../policies/operations.js';
import { listSilences, type SilencesDeps } from '../silences/operations.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import {
  DOCUMENT_KINDS,
  DOCUMENT_VERSION,
  exportObjects,
  ID_FIELD,
  keyMapsOf,
  normalised,
  sameJson,
  type ConfigDocument,
  type DocObject,
  type DocumentKind,
  type WorkspaceState,
} from './document.js';
import { type DimensionChange, exportDimensions, planDimensions, wantedDimensions, type DimensionDoc } from './dimensions.js';

export interface AsCodeDeps {
  readonly postgres: PostgresStore;
  readonly timezones: TimezoneCatalog;
  readonly channels: ChannelRules;
  readonly maxPolicies: number;
  readonly maxDestinations: number;
  readonly maxEscalationPolicies: number;
  readonly oncall: Omit<OnCallDeps, 'postgres'>;
  readonly silences: Omit<SilencesDeps, 'postgres'>;
  /** Declarations of dimensions: their limit, and what runs once an apply has committed (the backfills). */
  readonly dimensions: DimensionsDeps;
}

const ALL = { limit: null, offset: 0 } as const;

/** Every configuration object of the workspace. */
export async function loadState(db: Queryable, workspaceId: string): Promise<WorkspaceState> {
  const events = await db.query<{ event_id: string; agent: string; event: string }>(
    'SELECT event_id::text AS event_id, agent, event FROM event_definitions WHERE user_id = $1',
    [workspaceId],
  );
  return {
    destinations: await listDestinations(db, workspaceId, ALL),
    people: await listPeople(db, workspaceId, ALL),
    schedules: await listSchedules(db, workspaceId, ALL),
    escalation_policies: await listEscalationPolicies(db, workspaceId, ALL),
    alert_sources: await listAlertSources(db, workspaceId, ALL),
    policies: await listPolicies(db, workspaceId, ALL),
    silences: await listSilences(db, workspaceId, ALL),
    // Declared on a metric's first points and taken over by nobody: not the document's (no export, no prune).
    dimensions: (await listDimensionRows(db, workspaceId, ALL)).filter((d) => !d.on_first_sight),
    events: new Map(events.map((e) => [e.event_id, { agent: e.agent, event: e.event }])),
  };
}

/** The document of a state, and its version (a digest of it: any change to the configuration changes it). */
export function documentOf(state: WorkspaceState): { document: ConfigDocument; version: string } {
  return documentOfObjects(exportDimensions(state.dimensions), exportObjects(state, keyMapsOf(state)));
}

function documentOfObjects(dimensions: DimensionDoc[], objects: Record<DocumentKind, DocObject[]>): { document: ConfigDocument; version: string } {
  const document = { version: DOCUMENT_VERSION, dimensions, ...objects };
  // The export writes every object's fields in one order (and Postgres gives a jsonb value's keys in one order), so
  // the same state is the same text: JSON.stringify's, ten times quicker than a canonical writer over 10,000 policies.
  return { document, version: createHash('sha256').update(JSON.stringify(document)).digest('hex').slice(0, 16) };
}

export async function exportConfiguration(db: Queryable, workspaceId: string): Promise<{ document: ConfigDocument; version: string }> {
  return documentOf(await loadState(db, workspaceId));
}

/** A change of an object of a kind with keys; dimensions' are DimensionChange (by event name). */
export interface KeyedChange {
  readonly kind: DocumentKind;
  readonly key: string;
  readonly action: 'create' | 'update' | 'delete';
  /** The fields that change (every field the document gives, for a create; none for a delete). */
  readonly fields: readonly string[];
}

export type Change = KeyedChange | DimensionChange;

export interface Plan {
  readonly version: string;
  readonly changes: readonly Change[];
  readonly unmanaged: readonly { kind: DocumentKind | 'dimensions'; key: string }[];
}

/** A reference from one document object to another kind, by key, and where it is in the document. */
interface Reference {
  readonly kind: DocumentKind;
  readonly key: string;
  readonly path: string;
}

/** Every reference an object makes. */
function referencesOf(kind: DocumentKind, o: DocObject, at: string): Reference[] {
  const list = (target: DocumentKind, keys: unknown, path: string) =>
    Array.isArray(keys) ? keys.map((key: string, i) => ({ kind: target, key, path: `${path}/${i}` })) : [];
  const one = (target: DocumentKind, key: unknown, path: string) => (typeof key === 'string' ? [{ kind: target, key, path }] : []);
  switch (kind) {
    case 'destinations':
      return [...list('policies', o.policies, `${at}/policies`), ...list('alert_sources', o.alert_sources, `${at}/alert_sources`)];
    case 'people':
      return list('destinations', o.destinations, `${at}/destinations`);
    case 'schedules':
      return ((o.layers as { members: string[] }[] | undefined) ?? []).flatMap((l, i) => list('people', l.members, `${at}/layers/${i}/members`));
    case 'escalation_policies':
      return ((o.steps as { destinations?: string[]; schedules?: string[]; people?: string[] }[] | undefined) ?? []).flatMap((s, i) => [
        ...list('destinations', s.destinations, `${at}/steps/${i}/destinations`),
        ...list('schedules', s.schedules, `${at}/steps/${i}/schedules`),
        ...list('people', s.people, `${at}/steps/${i}/people`),
      ]);
    case 'alert_sources':
    case 'policies':
      return one('escalation_policies', o.escalation_policy, `${at}/escalation_policy`);
    case 'silences':
      return list('policies', o.policies, `${at}/policies`);
  }
}

/** The document's fields a field of a resource's own answer is named by (its problems' paths are the resource's). */
const RENAMED: Readonly<Record<string, string>> = {
  destination_ids: 'destinations',
  policy_ids: 'policies',
  escalation_policy_id: 'escalation_policy',
  event_id: 'event_definition',
};

/** An error of one object's operation, with its paths into the document. */
export function inDocument(err: unknown, at: string): unknown {
  if (!(err instanceof AppError)) return err;
  const rename = (path: string) => path.replace(/^\/([a-z_]+)/, (whole, field: string) => (RENAMED[field] ? `/${RENAMED[field]}` : whole));
  const details: ErrorDetail[] =
    err.details.length > 0 ? err.details.map((d) => ({ path: at + rename(d.path), message: d.message })) : [{ path: at, message: err.message }];
  return new AppError(err.kind, err.code, `${at}: ${err.message}`, details, err.options);
}

/** An error of a batch of objects (paths under each one's index, `/3/threshold`), with its paths into the document. */
export function fromIndexed(err: unknown, ats: readonly string[]): unknown {
  if (!(err instanceof AppError)) return err;
  const details = err.details.map((d) => {
    const m = /^\/(\d+)(.*)$/.exec(d.path);
    const at = m ? ats[Number(m[1])] : undefined;
    return at === undefined
      ? { path: `/policies${d.path}`, message: d.message }
      : (inDocument(new AppError(err.kind, err.code, d.message, [{ path: m![2]!, message: d.message }]), at) as AppError).details[0]!;
  });
  return new AppError(
    err.kind,
    err.code,
    details.length > 0 ? `${details[0]!.path}: ${err.message}` : err.message,
    details.length > 0 ? details : [{ path: '/policies', message: err.message }],
    err.options,
  );
}

/** A document object with its defaults, the fields the document gave, and where it is. */
export interface Wanted {
  readonly object: DocObject;
  readonly given: readonly string[];
  readonly at: string;
}

/** The document's objects of each kind, by key; 400 for a key given twice in a kind. */
function documentObjects(document: ConfigDocument): Record<DocumentKind, Map<string, Wanted>> {
  const problems: ErrorDetail[] = [];
  const out = {} as Record<DocumentKind, Map<string, Wanted>>;
  for (const kind of DOCUMENT_KINDS) {
    const objects = new Map<string, Wanted>();
    (document[kind] ?? []).forEach((object, i) => {
      const at = `/${kind}/${i}`;
      const first = objects.get(object.key);
      if (first) problems.push({ path: `${at}/key`, message: `is the key of ${first.at} too; keys are unique in a kind` });
      else objects.set(object.key, { object: normalised(kind, object), given: Object.keys(object).filter((f) => f !== 'key'), at });
    });
    out[kind] = objects;
  }
  if (problems.length > 0) throw validationFailed(problems, 'The document names an object twice; see details.');
  return out;
}

/** The stored value a document field is compared with where the export leaves it out (secrets). */
function storedSecrets(state: WorkspaceState, kind: DocumentKind, id: string): Record<string, unknown> {
  if (kind !== 'destinations') return {};
  const d = state.destinations.find((x) => x.destination_id === id)!;
  return { url: d.url, credentials: d.credentials };
}

/** The kinds a prune deletes; the others stay, listed as unmanaged. */
const DELETABLE: ReadonlySet<DocumentKind> = new Set(DOCUMENT_KINDS.filter((k) => k !== 'destinations'));

export interface Planned {
  readonly plan: Plan;
  readonly wanted: Record<DocumentKind, Map<string, Wanted>>;
  /** Each kind's key → stored id. */
  readonly ids: Record<DocumentKind, Map<string, string>>;
  /** Keys the stored objects have only by export (none stored): an apply stores them. */
  readonly madeKeys: Record<DocumentKind, Set<string>>;
  /** The document's dimensions, by event name. */
  readonly dimensions: ReturnType<typeof wantedDimensions>;
}

export function planOf(state: WorkspaceState, document: ConfigDocument, prune: boolean): Planned {
  const keys = keyMapsOf(state);
  const current = exportObjects(state, keys);
  const { version } = documentOfObjects(exportDimensions(state.dimensions), current);
  const dimensions = wantedDimensions(document.dimensions);
  const wanted = documentObjects(document);
  const ids = {} as Record<DocumentKind, Map<string, string>>;
  const madeKeys = {} as Record<DocumentKind, Set<string>>;
  const dimensionsPlan = planDimensions(state.dimensions, dimensions, prune);
  const changes: Change[] = [...dimensionsPlan.changes];
  const unmanaged: Plan['unmanaged'][number][] = [...dimensionsPlan.unmanaged];
  for (const kind of DOCUMENT_KINDS) {
    ids[kind] = new Map([...keys[kind]].map(([id, key]) => [key, id]));
    madeKeys[kind] = new Set(
      (state[kind] as readonly { key: string | null }[])
        .filter((o) => o.key === null)
        .map((o) => keys[kind].get((o as unknown as Record<string, string>)[ID_FIELD[kind]]!)!),
    );
  }
  // Every reference names an object of the document, or a stored one that stays.
  const problems: ErrorDetail[] = [];
  for (const kind of DOCUMENT_KINDS) {
    for (const { object, at } of wanted[kind].values()) {
      for (const r of referencesOf(kind, object, at)) {
        const stays = wanted[r.kind].has(r.key) || ((!prune || !DELETABLE.has(r.kind)) && ids[r.kind].has(r.key));
        if (!stays)
          problems.push({
            path: r.path,
            message: `names no ${r.kind.replace(/_/g, ' ').replace(/s$/, '')} "${r.key}" of the document${prune ? '' : ' or the workspace'}`,
          });
      }
    }
  }
  if (problems.length > 0) throw validationFailed(problems, 'The document refers to objects it does not have; see details.');
  for (const kind of DOCUMENT_KINDS) {
    const stored = new Map(current[kind].map((o) => [o.key, o]));
    for (const [key, { object, given }] of wanted[kind]) {
      const now = stored.get(key);
      if (!now) {
        changes.push({ kind, key, action: 'create', fields: given });
        continue;
      }
      const secrets = storedSecrets(state, kind, ids[kind].get(key)!);
      const fields = Object.keys(object).filter((f) => f !== 'key' && !sameJson(object[f], f in secrets ? secrets[f] : now[f]));
      if (fields.length > 0) changes.push({ kind, key, action: 'update', fields });
    }
    for (const key of stored.keys()) {
      if (wanted[kind].has(key)) continue;
      // alertmon has no delete of a destination (its delivery history refers to it): it stays, unmanaged.
      if (prune && DELETABLE.has(kind)) changes.push({ kind, key, action: 'delete', fields: [] });
      else unmanaged.push({ kind, key });
    }
  }
  return { plan: { version, changes, unmanaged }, wanted, ids, madeKeys, dimensions };
}

/** What applying the document would change (nothing is changed). */
export async function planConfiguration(db: Queryable, workspaceId: string, document: ConfigDocument, prune: boolean): Promise<Plan> {
  return planOf(await loadState(db, workspaceId), document, prune).plan;
}
