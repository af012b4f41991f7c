// Resolves (workspace, agent, event) to its definition on the ingest hot path. Answers are
// cached; a pair seen for the first time is created in Postgres, once, even when several
// requests race for it. An entry older than CACHE_TTL_MS is still served while a refresh
// runs in the background, so requests never wait on Postgres for a pair they used before.
// Edits made in this process invalidate the cache at once; edits made by another process
// are seen within CACHE_TTL_MS plus one refresh.
//
// It also knows each event's timezone for the journal writer, which computes day buckets at
// insert time: a timezone change made here applies to rows still in the journal.
//
// A batch refused after its new pairs were created withdraws them (`withdraw`), unless
// another request was handed them meanwhile: a refused batch leaves no definition behind.
import { DEFAULT_MAX_DEFINITIONS_PER_WORKSPACE } from './model.js';
import { deleteEventDefinition, ensureEventDefinition, eventTimezones } from './store.js';
import type { PostgresStore } from '../stores/postgres.js';

export const CACHE_TTL_MS = 30_000;
const MAX_ENTRIES_PER_WORKSPACE = 50_000;

interface Entry {
  /** The event id, and whether this lookup created the definition. */
  readonly resolved: Promise<{ eventId: string; created: boolean }>;
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
    readonly maxDefinitionsPerWorkspace = DEFAULT_MAX_DEFINITIONS_PER_WORKSPACE,
  ) {}

  /**
   * The event id of (agent, event) in the workspace, creating the definition when new
   * (DefinitionLimitError past the workspace's limit).
   */
  async resolve(workspaceId: string, agent: string, event: string): Promise<ResolvedPair> {
    const entry = this.entryFor(workspaceId, agent, event);
    const first = entry.handedOut++ === 0;
    const { eventId, created } = await entry.resolved;
    return { eventId, created: created && first };
  }

  /**
   * Deletes a definition that resolve() created for a request that was then refused, unless
   * the entry was handed to another request too (it may have stored rows with it). Later
   * resolves of the pair wait for the deletion, then create it afresh. Another process that
   * read the new row meanwhile is not known here: that race is accepted.
   */
  async withdraw(workspaceId: string, agent: string, event: string, eventId: string): Promise<void> {
    const pairs = this.cache.get(workspaceId);
    const key = `${agent}\u0000${event}`;
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

  private entryFor(workspaceId: string, agent: string, event: string): Entry {
    let pairs = this.cache.get(workspaceId);
    if (!pairs) {
      pairs = new Map();
      this.cache.set(workspaceId, pairs);
    }
    const key = `${agent}\u0000${event}`;
    const cached = pairs.get(key);
    if (cached && cached.expiresAt > Date.now()) return cached;
    if (cached) {
      if (!cached.refreshing) {
        cached.refreshing = true;
        // A failed refresh keeps the stale entry; the next request tries again.
        this.lookUp(workspaceId, pairs, key, agent, event).resolved.catch(() => (cached.refreshing = false));
      }
      return cached;
    }
    return this.lookUp(workspaceId, pairs, key, agent, event);
  }

  /** Reads (or creates) the definition and remembers its timezone. */
  private async create(workspaceId: string, agent: string, event: string): Promise<{ eventId: string; created: boolean }> {
    await this.withdrawals.get(`${workspaceId}\u0000${agent}\u0000${event}`)?.catch(() => {});
    const startedAt = this.changes;
    const { definition: d, created } = await ensureEventDefinition(this.postgres, workspaceId, agent, event, this.maxDefinitionsPerWorkspace);
    // A timezone set in this process after the lookup began is newer than what it read.
    const known = this.timezones.get(d.event_id);
    if (!known || known.setAt <= startedAt) this.timezones.set(d.event_id, { timezone: d.timezone, setAt: startedAt });
    return { eventId: d.event_id, created };
  }

  /** Starts a lookup and caches its entry; concurrent callers share it. */
  private lookUp(workspaceId: string, pairs: Map<string, Entry>, key: string, agent: string, event: string): Entry {
    const resolved = this.create(workspaceId, agent, event);
    const entry: Entry = { resolved, expiresAt: Date.now() + CACHE_TTL_MS, handedOut: 0 };
    if (!pairs.has(key)) {
      // A new pair is cached at once, so that concurrent requests share the lookup.
      if (pairs.size >= MAX_ENTRIES_PER_WORKSPACE) pairs.clear();
      pairs.set(key, entry);
      resolved.catch(() => {
        if (pairs.get(key) === entry) pairs.delete(key);
      });
    } else {
      // A refresh replaces the stale entry only once it has an answer.
      resolved.then(
        () => pairs.set(key, entry),
        () => {},
      );
    }
    return entry;
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
