// Resolves (workspace, agent, event) to its definition on the ingest hot path. Answers are
// cached for a short time; a pair seen for the first time is created in Postgres, once,
// even when several requests race for it. Edits made in this process invalidate the cache
// at once; edits made by another process are seen within CACHE_TTL_MS.
//
// It also knows each event's timezone for the group-commit writer, which computes day
// buckets at insert time: a timezone change made here applies to rows still queued.
import type { Workspace } from '../auth/tokens.js';
import { ensureEventDefinition } from '../events/definitions.js';
import type { PostgresStore } from '../stores/postgres.js';

export interface ResolvedEvent {
  readonly eventId: string;
  readonly timezone: string;
}

export const CACHE_TTL_MS = 30_000;
const MAX_ENTRIES_PER_WORKSPACE = 50_000;

interface Entry {
  readonly resolved: Promise<ResolvedEvent>;
  readonly expiresAt: number;
}

export class EventDirectory {
  /** workspace id → pair key → entry */
  private readonly cache = new Map<string, Map<string, Entry>>();
  /** event id → timezone, and the change counter when it was set */
  private readonly timezones = new Map<string, { timezone: string; setAt: number }>();
  private changes = 0;

  constructor(private readonly postgres: PostgresStore) {}

  resolve(ws: Workspace, agent: string, event: string): Promise<ResolvedEvent> {
    let pairs = this.cache.get(ws.userId);
    if (!pairs) {
      pairs = new Map();
      this.cache.set(ws.userId, pairs);
    }
    const key = `${agent}\u0000${event}`;
    const now = Date.now();
    const cached = pairs.get(key);
    if (cached && cached.expiresAt > now) return cached.resolved;

    // The promise itself is cached, so concurrent requests for a new pair share one lookup.
    const startedAt = this.changes;
    const resolved = ensureEventDefinition(this.postgres, ws, agent, event).then((d) => {
      // A timezone set in this process after the lookup began is newer than what it read.
      const known = this.timezones.get(d.event_id);
      if (!known || known.setAt <= startedAt) this.timezones.set(d.event_id, { timezone: d.timezone, setAt: startedAt });
      return { eventId: d.event_id, timezone: this.timezones.get(d.event_id)!.timezone };
    });
    if (pairs.size >= MAX_ENTRIES_PER_WORKSPACE) pairs.clear();
    pairs.set(key, { resolved, expiresAt: now + CACHE_TTL_MS });
    resolved.catch(() => {
      if (pairs.get(key)?.resolved === resolved) pairs.delete(key);
    });
    return resolved;
  }

  /** The timezone of an event resolved before (UTC if it never was). */
  timezoneOf(eventId: string): string {
    return this.timezones.get(eventId)?.timezone ?? 'UTC';
  }

  /** Records a definition change made by this process. */
  definitionChanged(ws: Workspace, eventId: string, timezone: string): void {
    this.changes++;
    this.timezones.set(eventId, { timezone, setAt: this.changes });
    this.cache.delete(ws.userId);
  }
}
