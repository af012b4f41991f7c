// Resolves (workspace, agent, event) to its definition on the ingest hot path. Answers are
// cached, and a known pair is answered without waiting; the pairs a batch sees for the first
// time are created in Postgres together (one read, one transaction), once, even when several
// requests race for them. An entry older than CACHE_TTL_MS is still served while a refresh
// runs in the background, so requests never wait on Postgres for a pair they used before.
// Edits made in this process invalidate the cache at once; edits made by another process
// are seen within CACHE_TTL_MS plus one refresh.
//
// It also knows each event's timezone for the journal writer, which computes day buckets at
// insert time: a timezone change made here applies to rows still in the journal.
//
// A batch refused after its new pairs were created withdraws them (`withdraw`), unless
// another request was handed them meanwhile: a refused batch leaves no definition behind.
import { deleteEventDefinition, ensureEventDefinitions, eventTimezones, type EventPair } from './store.js';
import type { PostgresStore } from '../stores/postgres.js';

export const CACHE_TTL_MS = 30_000;
const MAX_ENTRIES_PER_WORKSPACE = 50_000;

interface Resolution {
  readonly eventId: string;
  /** Whether this lookup created the definition. */
  readonly created: boolean;
}

interface Entry {
  readonly resolved: Promise<Resolution>;
  /** What `resolved` gave, once it has: read without waiting. */
  value?: Resolution;
  readonly expiresAt: number;
  refreshing?: boolean;
  /** How many resolve() calls were given this entry. */
  handedOut: number;
}

/** A pair as resolve() answered it: `created` is true for the one caller that created it. */
export interface ResolvedPair {
  readonly eventId: string;
  readonly created: boolean;
}

export class EventDirectory {
  /** workspace id → pair key → entry */
  private readonly cache = new Map<string, Map<string, Entry>>();
  /** event id → timezone, and the change counter when it was set */
  private readonly timezones = new Map<string, { timezone: string; setAt: number }>();
  private changes = 0;
  /** workspace, agent, event → the deletion of a withdrawn definition, still running */
  private readonly withdrawals = new Map<string, Promise<void>>();

  constructor(
    private readonly postgres: PostgresStore,
    /** WORKSPACE_MAX_EVENT_DEFINITIONS (src/config.ts). */
    readonly maxDefinitionsPerWorkspace: number,
    private readonly cacheTtlMs = CACHE_TTL_MS,
  ) {}

  /**
   * The event id of each (agent, event) pair in the workspace, in order, creating the
   * definitions of new pairs; a pair refused is answered with its error (DefinitionLimitError
   * past the workspace's limit). `created` is true for the one caller that created it.
   */
  async resolveAll(workspaceId: string, pairs: readonly EventPair[]): Promise<(ResolvedPair | Error)[]> {
    const workspace = this.workspaceCache(workspaceId);
    const now = Date.now();
    const entries: Entry[] = new Array(pairs.length);
    const missing: number[] = [];
    /** Stale entries, served while one refresh of them all runs. */
    const stale: number[] = [];
    for (let i = 0; i < pairs.length; i++) {
      const cached = workspace.get(pairKey(pairs[i]!));
      if (cached === undefined) missing.push(i);
      else {
        entries[i] = cached;
        if (cached.expiresAt <= now && !cached.refreshing) {
          cached.refreshing = true;
          stale.push(i);
        }
      }
    }
    if (stale.length > 0) {
      const refreshes = this.lookUp(
        workspaceId,
        workspace,
        stale.map((i) => pairs[i]!),
      );
      // A failed refresh keeps the stale entry; the next request tries again.
      for (const [k, i] of stale.entries()) refreshes[k]!.resolved.catch(() => (entries[i]!.refreshing = false));
    }
    if (missing.length > 0) {
      const created = this.lookUp(
        workspaceId,
        workspace,
        missing.map((i) => pairs[i]!),
      );
      for (const [k, i] of missing.entries()) entries[i] = created[k]!;
    }
    const firsts = entries.map((entry) => entry.handedOut++ === 0);
    const answers: (ResolvedPair | Error)[] = new Array(pairs.length);
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      try {
        const { eventId, created } = entry.value ?? (await entry.resolved);
        answers[i] = { eventId, created: created && firsts[i]! };
      } catch (err) {
        answers[i] = err instanceof Error ? err : new Error(String(err));
      }
    }
    return answers;
  }

  /**
   * Deletes a definition that resolve() created for a request that was then refused, unless
   * the entry was handed to another request too (it may have stored rows with it). Later
   * resolves of the pair wait for the deletion, then create it afresh. Another process that
   * read the new row meanwhile is not known here: that race is accepted.
   */
  async withdraw(workspaceId: string, agent: string, event: string, eventId: string): Promise<void> {
    const pairs = this.cache.get(workspaceId);
    const key = pairKey({ agent, event });
    const entry = pairs?.get(key);
    if (!pairs || !entry || entry.handedOut !== 1) return;
    pairs.delete(key);
    const deleted = deleteEventDefinition(this.postgres, workspaceId, eventId);
    const withdrawalKey = `${workspaceId}\u0000${key}`;
    this.withdrawals.set(withdrawalKey, deleted);
    try {
      await deleted;
    } finally {
      if (this.withdrawals.get(withdrawalKey) === deleted) this.withdrawals.delete(withdrawalKey);
    }
  }

  private workspaceCache(workspaceId: string): Map<string, Entry> {
    let pairs = this.cache.get(workspaceId);
    if (!pairs) {
      pairs = new Map();
      this.cache.set(workspaceId, pairs);
    }
    return pairs;
  }

  /** Reads (or creates) the definitions and remembers their timezones. */
  private async create(workspaceId: string, pairs: readonly EventPair[]): Promise<(Resolution | Error)[]> {
    await Promise.all(pairs.map((p) => this.withdrawals.get(`${workspaceId}\u0000${pairKey(p)}`)?.catch(() => {})));
    const startedAt = this.changes;
    const ensured = await ensureEventDefinitions(this.postgres, workspaceId, pairs, this.maxDefinitionsPerWorkspace);
    return ensured.map((e) => {
      if (e instanceof Error) return e;
      const d = e.definition;
      // A timezone set in this process after the lookup began is newer than what it read.
      const known = this.timezones.get(d.event_id);
      if (!known || known.setAt <= startedAt) this.timezones.set(d.event_id, { timezone: d.timezone, setAt: startedAt });
      return { eventId: d.event_id, created: e.created };
    });
  }

  /** Starts one lookup of the pairs and caches an entry for each; concurrent callers share them. */
  private lookUp(workspaceId: string, workspace: Map<string, Entry>, pairs: readonly EventPair[]): Entry[] {
    const all = this.create(workspaceId, pairs);
    const expiresAt = Date.now() + this.cacheTtlMs;
    return pairs.map((pair, k) => {
      const key = pairKey(pair);
      const resolved = all.then((answers) => {
        const answer = answers[k]!;
        if (answer instanceof Error) throw answer;
        return answer;
      });
      const entry: Entry = { resolved, expiresAt, handedOut: 0 };
      resolved.then(
        (value) => (entry.value = value),
        () => {},
      );
      if (!workspace.has(key)) {
        // A new pair is cached at once, so that concurrent requests share the lookup.
        if (workspace.size >= MAX_ENTRIES_PER_WORKSPACE) workspace.clear();
        workspace.set(key, entry);
        resolved.catch(() => {
          if (workspace.get(key) === entry) workspace.delete(key);
        });
      } else {
        // A refresh replaces the stale entry only once it has an answer.
        resolved.then(
          () => workspace.set(key, entry),
          () => {},
        );
      }
      return entry;
    });
  }

  /**
   * Reads the timezones this process does not know yet (records journaled before a restart
   * refer to events it has not resolved since).
   */
  async learnTimezones(eventIds: readonly string[]): Promise<void> {
    const unknown = eventIds.filter((id) => !this.timezones.has(id));
    if (unknown.length === 0) return;
    const startedAt = this.changes;
    for (const row of await eventTimezones(this.postgres, unknown)) {
      if (!this.timezones.has(row.event_id)) this.timezones.set(row.event_id, { timezone: row.timezone, setAt: startedAt });
    }
  }

  /** The timezone of an event resolved or learnt before (UTC if it never was). */
  timezoneOf(eventId: string): string {
    return this.timezones.get(eventId)?.timezone ?? 'UTC';
  }

  /** Records a definition change made by this process. */
  definitionChanged(workspaceId: string, eventId: string, timezone: string): void {
    this.changes++;
    this.timezones.set(eventId, { timezone, setAt: this.changes });
    this.cache.delete(workspaceId);
  }
}

const pairKey = (p: EventPair) => `${p.agent}\u0000${p.event}`;
