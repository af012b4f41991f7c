// The ingest path after validation: resolve each record's event definition, queue its row,
// and answer once the group commit holding it has been stored. A batch refused on the way
// (queue full, definition limit, rows the store refused) stores nothing: the definitions it
// created are withdrawn.
import type { IngestConfig } from '../config.js';
import { invalid, unavailable, type ErrorDetail } from '../errors.js';
import { DefinitionLimitError } from '../events/model.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { EventDirectory, ResolvedPair } from '../events/eventDirectory.js';
import { GroupCommitQueue, QueueFullError } from './groupCommitQueue.js';
import { LogWriter, queuedRow, type NewLogRecord, type QueuedLogRow } from './logWriter.js';
import { RowsRefusedError } from './rowsRefused.js';

export interface LogIngestorDeps {
  readonly clickhouse: ClickHouseStore;
  readonly directory: EventDirectory;
  readonly config: IngestConfig;
  readonly metrics: Metrics;
  readonly logger: Logger;
}

interface Pair {
  readonly agent: string;
  readonly event: string;
  /** Index of the first record of the batch with this pair. */
  readonly index: number;
}

export class LogIngestor {
  private readonly writer: LogWriter;
  private readonly queue: GroupCommitQueue<QueuedLogRow>;

  constructor(private readonly deps: LogIngestorDeps) {
    this.writer = new LogWriter(deps.clickhouse, deps.directory, deps.metrics, deps.config.dedupMaxIds, deps.logger);
    this.queue = new GroupCommitQueue<QueuedLogRow>({
      maxPendingRows: deps.config.queueMaxRecords,
      maxBatchRows: deps.config.batchMaxRecords,
      flushIntervalMs: deps.config.flushIntervalMs,
      maxConcurrentFlushes: deps.config.concurrentInserts,
      write: (batch) => this.writer.write(batch),
      onPendingChange: (rows) => deps.metrics.ingestQueueDepth.set(rows),
      isolates: (err) => err instanceof RowsRefusedError,
    });
  }

  /** Loads the idempotency window from ClickHouse; call before serving. */
  async start(): Promise<void> {
    const loaded = await this.writer.loadRecentIds();
    this.deps.logger.info('ingest ready', { recent_log_ids: loaded });
  }

  /** Stores the records; resolves when they are in ClickHouse. Throws 400 or 503 when it cannot take them. */
  async ingest(workspaceId: string, records: readonly NewLogRecord[], receivedAt: number): Promise<void> {
    if (records.length === 0) return;
    // Refuse before creating event definitions: an overloaded answer changes nothing. Rows of
    // failed inserts waiting to be completed count too: while ClickHouse fails, memory stays bounded.
    if (this.queue.pendingRows + this.writer.unsettledRows + records.length > this.deps.config.queueMaxRecords) throw this.overloaded(records.length);

    const eventIds = await this.resolvePairs(workspaceId, records);
    const receivedIso = new Date(receivedAt).toISOString();
    const rows = records.map((r) => queuedRow(workspaceId, eventIds.get(pairKey(r))!.eventId, r, receivedIso));

    try {
      await this.queue.enqueue(rows);
    } catch (err) {
      if (err instanceof QueueFullError) {
        await this.withdrawCreated(workspaceId, records, eventIds);
        throw this.overloaded(records.length);
      }
      if (err instanceof RowsRefusedError) {
        await this.withdrawCreated(workspaceId, records, eventIds);
        this.deps.metrics.rejectedRecords.inc({ reason: 'refused_by_store' }, records.length);
        this.deps.logger.warn('log batch refused by ClickHouse', { workspace_id: workspaceId, records: records.length, err: err.cause });
        throw invalid(
          'records_refused',
          'The store refused a value of this batch, and nothing of the batch was stored. Check its text for invalid characters.',
        );
      }
      this.deps.metrics.rejectedRecords.inc({ reason: 'storage_error' }, records.length);
      this.deps.logger.error('log insert failed', { err, records: records.length });
      throw unavailable('storage_unavailable', 'The logs could not be stored. Retry the batch.', 1);
    }
  }

  /**
   * Runs fn between two inserts (no insert runs meanwhile), e.g. to re-bucket day rollups;
   * a failed insert is completed first, so that fn sees every table agree.
   */
  runExclusive<R>(fn: () => Promise<R>): Promise<R> {
    return this.queue.runExclusive(async () => {
      await this.writer.completeUnsettled();
      return fn();
    });
  }

  /** Stores everything still queued, and completes failed inserts if it can (shutdown). */
  async drain(): Promise<void> {
    await this.queue.drain();
    await this.writer
      .completeUnsettled()
      .catch((err: unknown) => this.deps.logger.error('a failed log insert could not be completed before shutdown', { err }));
  }

  /** The event definition of each (agent, event) pair of the batch, created when new. */
  private async resolvePairs(workspaceId: string, records: readonly NewLogRecord[]): Promise<Map<string, ResolvedPair>> {
    const pairs = new Map<string, Pair>();
    records.forEach((r, index) => {
      if (!pairs.has(pairKey(r))) pairs.set(pairKey(r), { agent: r.agent, event: r.event, index });
    });
    const resolved = new Map<string, ResolvedPair>();
    const outcomes = await Promise.allSettled(
      [...pairs].map(async ([key, p]) => resolved.set(key, await this.deps.directory.resolve(workspaceId, p.agent, p.event))),
    );
    const failures = [...pairs.values()].flatMap((p, i) =>
      outcomes[i]!.status === 'rejected' ? [{ pair: p, reason: (outcomes[i] as PromiseRejectedResult).reason }] : [],
    );
    if (failures.length === 0) return resolved;

    await this.withdrawCreated(workspaceId, records, resolved);
    const overLimit = failures.filter((f) => f.reason instanceof DefinitionLimitError);
    if (overLimit.length !== failures.length) throw failures.find((f) => !(f.reason instanceof DefinitionLimitError))!.reason;
    const limit = (overLimit[0]!.reason as DefinitionLimitError).limit;
    this.deps.metrics.rejectedRecords.inc({ reason: 'definition_limit' }, records.length);
    const details: ErrorDetail[] = overLimit
      .map((f) => f.pair.index)
      .sort((a, b) => a - b)
      .map((index) => ({ path: `/${index}/event`, message: `would create a new event definition beyond the workspace's limit of ${limit}` }));
    throw invalid(
      'event_definition_limit',
      `The workspace has reached its limit of ${limit} event definitions; nothing of the batch was stored. Logs of existing (agent, event) pairs are still accepted.`,
      details,
    );
  }

  /** Withdraws the definitions this batch created (see EventDirectory.withdraw). */
  private async withdrawCreated(workspaceId: string, records: readonly NewLogRecord[], resolved: ReadonlyMap<string, ResolvedPair>): Promise<void> {
    const created = [...resolved].filter(([, r]) => r.created);
    if (created.length === 0) return;
    const byKey = new Map(records.map((r) => [pairKey(r), r]));
    await Promise.all(created.map(([key, r]) => this.deps.directory.withdraw(workspaceId, byKey.get(key)!.agent, byKey.get(key)!.event, r.eventId)));
  }

  private overloaded(records: number) {
    this.deps.metrics.rejectedRecords.inc({ reason: 'overload' }, records);
    return unavailable('ingest_overloaded', 'The ingest queue is full; nothing of this batch was stored. Retry after the given delay.', 1);
  }
}

const pairKey = (r: NewLogRecord) => `${r.agent}\u0000${r.event}`;
