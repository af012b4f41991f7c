// The apply of an alerting-as-code document (docs/as-code.md): the plan's changes, made through
// each resource's own operations in one transaction holding the workspace row: every change
// or none, and two applies one after the other (expected_version tells the second the first
// happened).
//
// The state is read, diffed and checked before the transaction opens: embedded Postgres
// (PGlite) is one connection, and every other statement of the process waits while a
// transaction is open. Inside it, a fingerprint of every row the state was read from (each
// table's count and the digest of its rows' ids and xmin, which every write of a row
// changes) tells whether the state is still the one read; when it is not, the state is read
// and diffed again inside the transaction, as if nothing had been done before.
import { conflict, validationFailed } from '../errors.js';
import { createAlertSource, deleteAlertSource, updateAlertSource } from '../alertsources/operations.js';
import { createDestination, updateDestination } from '../destinations/operations.js';
import { createEscalationPolicy, deleteEscalationPolicy, updateEscalationPolicy } from '../escalation/operations.js';
import { createPerson, deletePerson, updatePerson } from '../oncall/people.js';
import { createSchedule, deleteSchedule, updateSchedule } from '../oncall/schedules.js';
import type { Policy } from '../policies/model.js';
import { createPolicies, deletePolicy, updatePolicies, type NewPolicy } from '../policies/operations.js';
import { parseSilenceMatchers } from '../silences/matchers.js';
import { createSilence, deleteSilence, updateSilence } from '../silences/operations.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import { type ConfigDocument, DOCUMENT_KINDS, type DocObject, type DocumentKind, type EventRef, type WorkspaceState } from './document.js';
import { setKey, within } from './keys.js';
import { recordApply } from './managed.js';
import { afterDimensionsCommitted, type DimensionChange, type DimensionsWritten, writeDimensions } from './dimensions.js';
import { type AsCodeDeps, type KeyedChange as Change, fromIndexed, inDocument, loadState, type Plan, type Planned, planOf } from './plan.js';

/** The tables a state is read from, with the column naming their workspace and their id. */
const STATE_TABLES = [
  ['destinations', 'workspace_id', 'destination_id'],
  ['people', 'workspace_id', 'person_id'],
  ['schedules', 'workspace_id', 'schedule_id'],
  ['escalation_policies', 'workspace_id', 'escalation_policy_id'],
  ['alert_sources', 'workspace_id', 'alert_source_id'],
  ['policies', 'workspace_id', 'policy_id'],
  ['silences', 'workspace_id', 'silence_id'],
  ['dimensions', 'workspace_id', 'event'],
  ['event_definitions', 'user_id', 'event_id'],
] as const;

const FINGERPRINT_SQL = `SELECT concat_ws(' ', ${STATE_TABLES.map(
  ([table, ws, id]) => `(SELECT count(*) || ':' || coalesce(sum(hashtextextended(${id}::text || '/' || xmin::text, 0)), 0) FROM ${table} WHERE ${ws} = $1)`,
).join(', ')}) AS fingerprint`;

/** A digest of every row a state is read from: any write to one of them changes it. */
async function fingerprintOf(db: Queryable, workspaceId: string): Promise<string> {
  const rows = await db.query<{ fingerprint: string }>(FINGERPRINT_SQL, [workspaceId]);
  return rows[0]!.fingerprint;
}

export interface ApplyOptions {
  readonly prune: boolean;
  /** The version a plan answered: 409 config_changed when the configuration is no longer at it. */
  readonly expectedVersion?: string;
  /** Told after each change made (a progress line for long applies). */
  readonly onProgress?: (done: number, total: number) => void;
}

/**
 * Applies the document: every change of its plan, in one transaction that holds the
 * workspace row (a concurrent apply waits, then finds the version moved). A change a
 * resource refuses refuses the whole document, with the paths into it. The backfills of the
 * dimensions declared start once the transaction has committed (a failed apply starts none).
 */
export async function applyConfiguration(deps: AsCodeDeps, workspaceId: string, document: ConfigDocument, options: ApplyOptions): Promise<Plan> {
  const read = await fingerprintOf(deps.postgres, workspaceId);
  const state = await loadState(deps.postgres, workspaceId);
  const planned = planOf(state, document, options.prune);
  const updated = planned.plan.changes.filter((c) => c.kind === 'policies' && c.action === 'update').map((c) => planned.ids.policies.get(c.key)!);
  const { plan, dimensions } = await deps.postgres.transaction(async (tx) => {
    await tx.query('SELECT 1 FROM workspaces WHERE user_id = $1 FOR UPDATE', [workspaceId]);
    // The policies to update are locked first: the rows read stay the ones written over.
    if (updated.length > 0) await tx.query('SELECT 1 FROM policies WHERE workspace_id = $1 AND policy_id = ANY($2::uuid[]) FOR UPDATE', [workspaceId, updated]);
    const unchanged = (await fingerprintOf(tx, workspaceId)) === read;
    const now = unchanged
      ? { state, planned }
      : await (async () => {
          const again = await loadState(tx, workspaceId);
          return { state: again, planned: planOf(again, document, options.prune) };
        })();
    if (options.expectedVersion !== undefined && options.expectedVersion !== now.planned.plan.version) {
      throw conflict('config_changed', 'The configuration changed since the plan that gave expected_version; plan again.');
    }
    const current = unchanged ? state.policies : undefined;
    const written = await new Applier(deps, within(tx, deps.postgres), tx, workspaceId, now.state, now.planned, current, options.onProgress).run();
    return { plan: now.planned.plan, dimensions: written };
  });
  await afterDimensionsCommitted(deps.dimensions, workspaceId, dimensions);
  return plan;
}

/** Resolves keys to ids as the apply goes, and runs each change through its resource's operation. */
class Applier {
  private done = 0;

  constructor(
    private readonly deps: AsCodeDeps,
    private readonly db: PostgresStore,
    private readonly tx: Queryable,
    private readonly workspaceId: string,
    private readonly state: WorkspaceState,
    private readonly planned: Planned,
    /** The policies as stored and locked, when the state read before the transaction is still the stored one. */
    private readonly currentPolicies: readonly Policy[] | undefined,
    private readonly onProgress?: (done: number, total: number) => void,
  ) {}

  private id(kind: DocumentKind, key: string): string {
    return this.planned.ids[kind].get(key)!;
  }

  private ids(kind: DocumentKind, keys: unknown): string[] {
    return ((keys as string[] | null | undefined) ?? []).map((k) => this.id(kind, k));
  }

  private eventIds?: Map<string, string>;

  private eventId(ref: EventRef | null): string | null {
    if (ref === null) return null;
    this.eventIds ??= new Map([...this.state.events].map(([id, e]) => [`${e.agent}\u0000${e.event}`, id]));
    const id = this.eventIds.get(`${ref.agent}\u0000${ref.event}`);
    if (id === undefined) {
      throw validationFailed([
        { path: '/event_definition', message: `names no event definition (agent "${ref.agent}", event "${ref.event}") of the workspace` },
      ]);
    }
    return id;
  }

  private tick(): void {
    this.done++;
    this.onProgress?.(this.done, this.planned.plan.changes.length);
  }

  /** Every change; what the dimensions leave to do after the commit. */
  async run(): Promise<DimensionsWritten> {
    const { changes: all } = this.planned.plan;
    const changes = all.filter((c): c is Change => c.kind !== 'dimensions');
    const byKind = (kind: DocumentKind, action: Change['action']) => changes.filter((c) => c.kind === kind && c.action === action);
    const dimensionChanges = all.filter((c): c is DimensionChange => c.kind === 'dimensions');
    const dimensions = await writeDimensions(this.tx, this.deps.dimensions, this.workspaceId, dimensionChanges, this.planned.dimensions, () => this.tick());
    for (const kind of DOCUMENT_KINDS) {
      // Policies (10,000 in a document) are created with one insert and updated with one statement per kind of reset; every other change through its own operation.
      if (kind === 'policies') {
        await this.createPolicies(byKind(kind, 'create'));
        await this.updatePolicies(byKind(kind, 'update'));
        continue;
      }
      for (const change of [...byKind(kind, 'create'), ...byKind(kind, 'update')]) {
        const { object, at } = this.planned.wanted[kind].get(change.key)!;
        try {
          await this.write(kind, change, object);
        } catch (err) {
          throw inDocument(err, at);
        }
        this.tick();
      }
    }
    // A destination's policies and alert sources, once they all exist.
    for (const [key, { object, at }] of this.planned.wanted.destinations) {
      const scoped = object.scope === 'policies';
      const change = changes.find((c) => c.kind === 'destinations' && c.key === key);
      if (!scoped || change === undefined || !change.fields.some((f) => f === 'scope' || f === 'policies' || f === 'alert_sources')) continue;
      try {
        await updateDestination(
          this.tx,
          this.workspaceId,
          this.id('destinations', key),
          { scope: 'policies', policy_ids: this.routedIds(object) },
          this.deps.channels,
        );
      } catch (err) {
        throw inDocument(err, at);
      }
    }
    // Keys the stored objects had only by export are stored now, whether or not they changed.
    for (const kind of DOCUMENT_KINDS) {
      for (const key of this.planned.madeKeys[kind]) {
        if (this.planned.wanted[kind].has(key)) await setKey(this.tx, kind, this.workspaceId, this.id(kind, key), key);
      }
    }
    for (const kind of [...DOCUMENT_KINDS].reverse()) {
      for (const change of byKind(kind, 'delete')) {
        try {
          await this.remove(kind, this.id(kind, change.key));
        } catch (err) {
          throw inDocument(err, `/${kind}`);
        }
        this.tick();
      }
    }
    // What the workspace now manages from a file: the console shows an object of it changed since (managed.ts).
    await recordApply(this.tx, this.workspaceId, {
      ...(Object.fromEntries(DOCUMENT_KINDS.map((kind) => [kind, [...this.planned.wanted[kind].keys()].map((key) => this.id(kind, key))])) as Record<
        DocumentKind,
        string[]
      >),
      dimensions: [...this.planned.dimensions.keys()],
    });
    return dimensions;
  }

  private async createPolicies(creates: readonly Change[]): Promise<void> {
    if (creates.length === 0) return;
    const ats = creates.map((c) => this.planned.wanted.policies.get(c.key)!.at);
    const inputs = creates.map((c, i) => {
      try {
        return { key: c.key, input: this.policyFields(this.planned.wanted.policies.get(c.key)!.object) };
      } catch (err) {
        throw inDocument(err, ats[i]!);
      }
    });
    let ids: string[];
    try {
      ids = await createPolicies(this.tx, this.workspaceId, inputs, { maxPerWorkspace: this.deps.maxPolicies, timezones: this.deps.timezones });
    } catch (err) {
      throw fromIndexed(err, ats);
    }
    creates.forEach((c, i) => {
      this.planned.ids.policies.set(c.key, ids[i]!);
      this.tick();
    });
  }

  private async updatePolicies(updates: readonly Change[]): Promise<void> {
    if (updates.length === 0) return;
    const ats = updates.map((c) => this.planned.wanted.policies.get(c.key)!.at);
    const edits = updates.map((c, i) => {
      try {
        return { id: this.id('policies', c.key), changes: this.policyFields(this.planned.wanted.policies.get(c.key)!.object) };
      } catch (err) {
        throw inDocument(err, ats[i]!);
      }
    });
    try {
      await updatePolicies(this.tx, this.workspaceId, edits, this.deps.timezones, this.currentPolicies);
    } catch (err) {
      throw fromIndexed(err, ats);
    }
    for (const _ of updates) this.tick();
  }

  private policyFields(o: DocObject): NewPolicy {
    const { key: _k, escalation_policy, event_definition, ...rest } = o;
    return {
      ...rest,
      event_id: this.eventId(event_definition as EventRef | null),
      escalation_policy_id: escalation_policy === null ? null : this.id('escalation_policies', escalation_policy as string),
    } as unknown as NewPolicy;
  }

  private routedIds(o: DocObject): string[] {
    return [...this.ids('policies', o.policies), ...this.ids('alert_sources', o.alert_sources)];
  }

  private async write(kind: DocumentKind, change: Change, o: DocObject): Promise<void> {
    const { db, tx, workspaceId: ws, deps } = this;
    const creating = change.action === 'create';
    const existing = creating ? null : this.id(kind, change.key);
    let id: string;
    switch (kind) {
      case 'destinations': {
        // Scoped to policies once they exist (the pass after every kind); until then, as it is.
        const input = {
          channel: o.channel as string,
          ...(o.url === undefined ? {} : { url: o.url as string | null }),
          ...(o.credentials === undefined ? {} : { credentials: o.credentials as Record<string, string> | null }),
          enabled: o.enabled as boolean,
          group_window_seconds: o.group_window_seconds as number,
          title_template: o.title_template as string | null,
          message_template: o.message_template as string | null,
          body_template: o.body_template as string | null,
          ...(o.format === undefined ? {} : { format: o.format as string }),
        };
        const routing = o.scope === 'all' ? { scope: 'all', policy_ids: [] } : {};
        id = existing
          ? (await updateDestination(tx, ws, existing, { ...input, ...routing }, deps.channels)).destination_id
          : (await createDestination(db, ws, { ...input, scope: 'all' }, deps.channels, deps.maxDestinations)).destination_id;
        break;
      }
      case 'people': {
        const fields = { name: o.name as string, timezone: o.timezone as string, destination_ids: this.ids('destinations', o.destinations) };
        const oncall = { ...deps.oncall, postgres: db };
        id = existing ? (await updatePerson(oncall, ws, existing, fields)).person_id : (await createPerson(oncall, ws, fields)).person_id;
        break;
      }
      case 'schedules': {
        const layers = (o.layers as Record<string, unknown>[]).map((l) => ({
          ...(l as object),
          start: new Date(l.start as string),
          members: this.ids('people', l.members),
        }));
        const fields = { name: o.name as string, timezone: o.timezone as string, notify_handoffs: o.notify_handoffs as boolean, layers } as never;
        const oncall = { ...deps.oncall, postgres: db };
        id = existing ? (await updateSchedule(oncall, ws, existing, fields)).schedule_id : (await createSchedule(oncall, ws, fields)).schedule_id;
        break;
      }
      case 'escalation_policies': {
        const steps = (o.steps as { after_minutes: number; destinations: string[]; schedules: string[]; people: string[] }[]).map((s) => ({
          after_minutes: s.after_minutes,
          destination_ids: this.ids('destinations', s.destinations),
          schedule_ids: this.ids('schedules', s.schedules),
          person_ids: this.ids('people', s.people),
        }));
        const fields = { name: o.name as string, steps, repeat: o.repeat as number };
        id = existing
          ? (await updateEscalationPolicy(db, ws, existing, fields)).escalation_policy_id
          : (await createEscalationPolicy(db, ws, fields, deps.maxEscalationPolicies)).escalation_policy_id;
        break;
      }
      case 'alert_sources': {
        const { key: _k, escalation_policy, ...rest } = o;
        const fields = {
          ...rest,
          escalation_policy_id: escalation_policy === null ? null : this.id('escalation_policies', escalation_policy as string),
        } as never;
        id = existing ? (await updateAlertSource(db, ws, existing, fields)).alert_source_id : (await createAlertSource(db, ws, fields)).alert_source_id;
        break;
      }
      case 'policies':
        throw new Error('policies are written by createPolicies and updatePolicies');
      case 'silences': {
        const fields = {
          policy_ids: o.policies === null ? null : this.ids('policies', o.policies),
          ...(o.matchers === undefined ? {} : { matchers: parseSilenceMatchers(o.matchers as string[] | null) }),
          ends_at: new Date(o.ends_at as string),
          ...(o.starts_at === undefined ? {} : { starts_at: new Date(o.starts_at as string) }),
          comment: o.comment as string,
          recurrence: o.recurrence as never,
        };
        const silences = { ...deps.silences, postgres: db };
        id = existing ? (await updateSilence(silences, ws, existing, fields)).silence_id : (await createSilence(silences, ws, fields)).silence_id;
        break;
      }
    }
    if (creating) {
      this.planned.ids[kind].set(change.key, id);
      await setKey(tx, kind, ws, id, change.key);
    }
  }

  private async remove(kind: DocumentKind, id: string): Promise<void> {
    const { db, tx, workspaceId: ws, deps } = this;
    switch (kind) {
      case 'destinations':
        throw new Error('destinations are never deleted by an apply (alertmon has no delete of a destination)');
      case 'people':
        return deletePerson({ ...deps.oncall, postgres: db }, ws, id);
      case 'schedules':
        return deleteSchedule({ ...deps.oncall, postgres: db }, ws, id);
      case 'escalation_policies':
        return deleteEscalationPolicy(db, ws, id);
      case 'alert_sources':
        return deleteAlertSource(db, ws, id);
      case 'policies':
        return deletePolicy(tx, ws, id);
      case 'silences':
        return deleteSilence(tx, ws, id);
    }
  }
}
