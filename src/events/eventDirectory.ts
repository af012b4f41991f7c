// Resolves (workspace, agent, event) to its definition on the ingest hot path. Answers are
// cached; a pair seen for the first time is created in Postgres, once, even when several
// requests race for it. An entry older than CACHE_TTL_MS is still served while a refresh
// runs in the background, so requests never wait on Postgres for a pair they used before.
// Edits made in this process invalidate the cache at once; edits made by another process
// are seen within CACHE_TTL_MS plus one refresh.
//
// It also knows each event's timezone for the group-commit writer, which computes day
// buckets at insert time: a timezone change made here applies to rows still queued.
import { ensureEventDefinition } from './definitions.js';
import type { PostgresStore } from '../stores/postgres.js';

export const CACHE_TTL_MS = 30_000;
const MAX_ENTRIES_PER_WORKSPACE = 50_000;

interface Entry {
  /** The event id. */
  readonly resolved: Promise<string>;
  readonly expiresAt: number;
  refreshing?: boolean;
}

export class EventDirectory {
  /** workspace id → pair key → entry */
  private readonly cache = new Map<string, Map<string, Entry>>();
  /** event id → timezone, and the change counter when it was set */
  private readonly timezones = new Map<string, { timezone: string; setAt: number }>();
  private changes = 0;

  constructor(private readonly postgres: PostgresStore) {}

  /** The event id of (agent, event) in the workspace, creating the definition when new. */
  resolve(workspaceId: string, agent: string, event: string): Promise<string> {
    let pairs = this.cache.get(workspaceId);
    if (!pairs) {
      pairs = new Map();
      this.cache.set(workspaceId, pairs);
    }
    const key = `${agent}\u0000${event}`;
    const cached = pairs.get(key);
    if (cached && cached.expiresAt > Date.now()) return cached.resolved;
    if (cached) {
      if (!cached.refreshing) {
        cached.refreshing = true;
        // A failed refresh keeps the stale entry; the next request tries again.
        this.lookUp(workspaceId, pairs, key, agent, event).catch(() => (cached.refreshing = false));
      }
      return cached.resolved;
    }
    return this.lookUp(workspaceId, pairs, key, agent, event);
  }

  /** Reads (or creates) the definition and caches the answer; concurrent callers share it. */
  private lookUp(workspaceId: string, pairs: Map<string, Entry>, key: string, agent: string, event: string): Promise<string> {
    const startedAt = this.changes;
    const resolved = ensureEventDefinition(this.postgres, workspaceId, agent, event).then((d) => {
      // A timezone set in this process after the lookup began is newer than what it read.
      const known = this.timezones.get(d.event_id);
      if (!known || known.setAt <= startedAt) this.timezones.set(d.event_id, { timezone: d.timezone, setAt: startedAt });
      return d.event_id;
    });
    const entry: Entry = { resolved, expiresAt: Date.now() + CACHE_TTL_MS };
    if (!pairs.has(key)) {
      // A new pair is cached at once, so that concurrent requests share the lookup.
      if (pairs.size >= MAX_ENTRIES_PER_WORKSPACE) pairs.clear();
      pairs.set(key, entry);
      resolved.catch(() => {
        if (pairs.get(key) === entry) pairs.delete(key);
      });
    } else {
      // A refresh replaces the stale entry only once it has an answer.
      resolved.then(() => pairs.set(key, entry), () => {});
    }
    return resolved;
  }

  /** The timezone of an event resolved before (UTC if it never was). */
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
