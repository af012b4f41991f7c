// The signal that records were inserted: the ingest side announces the events each insert
// touched, the evaluation worker subscribes. In a process that runs the worker the signal
// goes straight to it; a process that only ingests (ROLE=ingest) sends it to the workers of
// other processes through Postgres NOTIFY, which they LISTEN to (server stores only: embedded
// stores belong to one process). A lost signal costs latency, never a verdict: the periodic
// cycle evaluates every policy anyway.
import type { Logger } from '../logger.js';
import type { PostgresStore } from '../stores/postgres.js';

export const INSERT_CHANNEL = 'alertmon_inserted';
/** Event ids per NOTIFY: a payload must stay under 8,000 bytes (37 bytes each with its comma). */
const IDS_PER_NOTIFY = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type InsertListener = (eventIds: readonly string[]) => void;

export class InsertSignal {
  private readonly listeners = new Set<InsertListener>();

  constructor(
    private readonly postgres: PostgresStore,
    private readonly logger: Logger,
  ) {}

  /** The events of a completed insert: to this process's worker, or else to the other processes'. */
  announce(eventIds: Iterable<string>): void {
    const ids = [...eventIds];
    if (ids.length === 0) return;
    if (this.listeners.size > 0) {
      for (const listener of this.listeners) listener(ids);
      return;
    }
    for (let i = 0; i < ids.length; i += IDS_PER_NOTIFY) {
      this.postgres.query('SELECT pg_notify($1, $2)', [INSERT_CHANNEL, ids.slice(i, i + IDS_PER_NOTIFY).join(',')]).catch((err: unknown) => {
        this.logger.warn('evaluation signal: NOTIFY failed; the periodic cycle evaluates these events', { err });
      });
    }
  }

  /** Hears this process's announcements and the other processes' NOTIFYs until the returned function is called. */
  subscribe(listener: InsertListener): () => Promise<void> {
    this.listeners.add(listener);
    const unlisten = this.postgres.listen(
      INSERT_CHANNEL,
      (payload) => {
        // Only ids are acted on: a stray NOTIFY on the channel cannot inject anything else.
        const ids = payload.split(',').filter((id) => UUID.test(id));
        if (ids.length > 0) listener(ids);
      },
      (err) => this.logger.warn('evaluation signal: LISTEN connection lost; reconnecting', { err }),
    );
    return async () => {
      this.listeners.delete(listener);
      await unlisten();
    };
  }
}
