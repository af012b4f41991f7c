// The ingest path after validation: resolve each record's event definition, queue its row,
// and answer once the group commit holding it has been stored.
import type { IngestConfig } from '../config.js';
import { unavailable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { EventDirectory } from '../events/eventDirectory.js';
import { GroupCommitQueue, QueueFullError } from './groupCommitQueue.js';
import { LogWriter, queuedRow, type NewLogRecord, type QueuedLogRow } from './logWriter.js';

export interface LogIngestorDeps {
  readonly clickhouse: ClickHouseStore;
  readonly directory: EventDirectory;
  readonly config: IngestConfig;
  readonly metrics: Metrics;
  readonly logger: Logger;
}

export class LogIngestor {
  private readonly writer: LogWriter;
  private readonly queue: GroupCommitQueue<QueuedLogRow>;

  constructor(private readonly deps: LogIngestorDeps) {
    this.writer = new LogWriter(deps.clickhouse, deps.directory, deps.metrics, deps.config.dedupMaxIds);
    this.queue = new GroupCommitQueue<QueuedLogRow>({
      maxPendingRows: deps.config.queueMaxRecords,
      maxBatchRows: deps.config.batchMaxRecords,
      flushIntervalMs: deps.config.flushIntervalMs,
      maxConcurrentFlushes: deps.config.concurrentInserts,
      write: (batch) => this.writer.write(batch),
      onPendingChange: (rows) => deps.metrics.ingestQueueDepth.set(rows),
    });
  }

  /** Loads the idempotency window from ClickHouse; call before serving. */
  async start(): Promise<void> {
    const loaded = await this.writer.loadRecentIds();
    this.deps.logger.info('ingest ready', { recent_log_ids: loaded });
  }

  /** Stores the records; resolves when they are in ClickHouse. Throws 503 when it cannot take them. */
  async ingest(workspaceId: string, records: readonly NewLogRecord[], receivedAt: number): Promise<void> {
    if (records.length === 0) return;
    // Refuse before creating event definitions: an overloaded answer changes nothing.
    if (this.queue.pendingRows + records.length > this.deps.config.queueMaxRecords) throw this.overloaded(records.length);

    const pairKey = (r: NewLogRecord) => `${r.agent}\u0000${r.event}`;
    const eventIds = new Map<string, string>();
    await Promise.all(
      [...new Map(records.map((r) => [pairKey(r), r])).entries()].map(async ([key, r]) => {
        eventIds.set(key, await this.deps.directory.resolve(workspaceId, r.agent, r.event));
      }),
    );
    const receivedIso = new Date(receivedAt).toISOString();
    const rows = records.map((r) => queuedRow(workspaceId, eventIds.get(pairKey(r))!, r, receivedIso));

    try {
      await this.queue.enqueue(rows);
    } catch (err) {
      if (err instanceof QueueFullError) throw this.overloaded(records.length);
      this.deps.metrics.rejectedRecords.inc({ reason: 'storage_error' }, records.length);
      this.deps.logger.error('log insert failed', { err, records: records.length });
      throw unavailable('storage_unavailable', 'The logs could not be stored. Retry the batch.', 1);
    }
  }

  /** Runs fn between two inserts (no insert runs meanwhile), e.g. to re-bucket day rollups. */
  runExclusive<R>(fn: () => Promise<R>): Promise<R> {
    return this.queue.runExclusive(fn);
  }

  /** Stores everything still queued (shutdown). */
  drain(): Promise<void> {
    return this.queue.drain();
  }

  private overloaded(records: number) {
    this.deps.metrics.rejectedRecords.inc({ reason: 'overload' }, records);
    return unavailable('ingest_overloaded', 'The ingest queue is full; nothing of this batch was stored. Retry after the given delay.', 1);
  }
}
