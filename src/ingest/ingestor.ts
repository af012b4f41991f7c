// The seam between the logs route and a journal: the local one (logIngestor.ts, segment files
// under JOURNAL_DIR) or a shared stream (stream/streamIngestor.ts, JOURNAL_URL).
import type { PreparedBatch } from './journaledBatch.js';

/** Told the event ids of each block once it is in ClickHouse (and so in every rollup): data-driven evaluation. */
export type InsertListener = (eventIds: ReadonlySet<string>) => void;

export interface Ingestor {
  /** Journals the batch's records; resolves once they are durable. Throws 400 or 503 when it cannot take them. */
  ingest(batch: PreparedBatch): Promise<void>;
  /** Resolves once every record this process journaled before the call is in ClickHouse (and so in every rollup). */
  caughtUp(): Promise<void>;
  /** Runs fn between two inserts (no insert runs meanwhile), e.g. to re-bucket day rollups. */
  runExclusive<R>(fn: () => Promise<R>): Promise<R>;
  /**
   * How long the journal writer of this process has made no progress while a backlog waits
   * for it (ms; 0 when nothing waits or it moves), null where this process runs no writer.
   */
  writerStalledMs(now: number): number | null;
  /** Shutdown, once no request is in flight: drains into ClickHouse for at most `drainMs`, then stops. */
  close(drainMs: number): Promise<void>;
}
