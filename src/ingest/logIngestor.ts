// The ingest path after validation: resolve each record's event definition, drop records
// whose log_id was accepted in the last 10 minutes, and append the rest to the write-ahead
// journal; the request is answered once the journal's fdatasync covers it. The journal
// writer moves journaled batches into ClickHouse in large blocks (journalWriter.ts).
//
// A log_id is claimed when its record is journaled. Concurrent requests carrying the same
// id form a line: each waits only for the claimant before it (which started earlier, so
// waits never go round in a circle) and journals the record itself only if that one failed.
// A batch refused on the way (journal full, definition limit) journals nothing, and the
// definitions it created are withdrawn.
import type { BlockSeriesLabels } from './logsBlockInsert.js';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { IngestConfig } from '../config.js';
import { tooLarge, unavailable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { EventDirectory } from '../events/eventDirectory.js';
import type { Ingestor, InsertListener } from './ingestor.js';
import { clientLogIds, decodeBatch, journalPayload, RecordTooLargeError, splitPayload, summariseBatch, type PreparedBatch } from './journaledBatch.js';
import { FrameTooLargeError, MAX_APPEND_PAYLOAD_BYTES } from './journal/frames.js';
import { isOutOfSpace, Journal, JournalFullError } from './journal/journal.js';
import { JournalWriter } from './journalWriter.js';
import { resolvePairs, withdrawCreated } from './pairs.js';
import { DEDUP_WINDOW_MS, RecentLogIds, uuidWords } from './recentLogIds.js';
import { Turns } from './turns.js';

/** Records a request goes through between two turns of the event loop (a few ms). */
const RECORDS_PER_TURN = 8192;

/** CPU work of requests run per event-loop iteration at most (turns.ts). */
const TURN_BUDGET_MS = 10;

export interface LogIngestorDeps {
  readonly clickhouse: ClickHouseStore;
  readonly directory: EventDirectory;
  readonly config: IngestConfig;
  readonly metrics: Metrics;
  readonly logger: Logger;
  /**
   * Derives each record's series as its row is built (src/dimensions/seriesLabeller.ts). Given
   * at open, not later: the writer starts replaying the journal as it opens, and a block built
   * before the labels were there would be stored without its series for good (issue 52).
   */
  readonly series: BlockSeriesLabels | null;
  /**
   * Told of each block once it is in ClickHouse. Given at open for the same reason: the blocks
   * replayed as the writer opens are announced like any other.
   */
  readonly onInserted: InsertListener | null;
}

export class LogIngestor implements Ingestor {
  private readonly recentIds: RecentLogIds;
  /** Workspace → client ids claimed by requests still being journaled → that request's outcome (true: journaled). */
  private readonly inFlight = new Map<string, Map<string, Promise<boolean>>>();
  private appendedFrames = 0;
  private closing = false;
  private readonly turns = new Turns(TURN_BUDGET_MS);
  /** When a full journal disk was last logged (once per 10 s: a storm of refused batches would flood the log). */
  private outOfSpaceLoggedAt = 0;

  private constructor(
    private readonly deps: LogIngestorDeps,
    private readonly journal: Journal,
    private readonly writer: JournalWriter,
    recentIds: RecentLogIds,
  ) {
    this.recentIds = recentIds;
  }

  /**
   * Opens the journal (recovering what a crash left), loads the idempotency window from
   * ClickHouse and the journal, and starts moving the backlog into ClickHouse.
   */
  static async open(deps: LogIngestorDeps): Promise<LogIngestor> {
    const { config, metrics, logger } = deps;
    // Read before the writer replays the journal: a block built without them would be stored unlabelled.
    await deps.series?.load();
    const recentIds = new RecentLogIds(config.dedupMaxIds);
    const words = new Int32Array(4);
    const loaded = await loadRecentIds(deps.clickhouse, recentIds);
    const journal = await Journal.open(
      { dir: config.journalDir, maxBytes: config.journalMaxBytes, segmentBytes: config.journalSegmentBytes, logger, metrics },
      (payload) => {
        const summary = summariseBatch(payload);
        const batch = decodeBatch(payload);
        for (const id of clientLogIds(batch)) recentIds.add(batch.workspaceId, uuidWords(id, words), 0, summary.journaledAt);
        return summary;
      },
    );
    const writer = new JournalWriter(
      journal,
      deps.clickhouse,
      deps.directory,
      { blockRecords: config.insertBlockRecords, blockBytes: 64 * 1024 * 1024, intervalMs: config.flushIntervalMs },
      metrics,
      logger,
      config.journalDir,
    );
    const ingestor = new LogIngestor(deps, journal, writer, recentIds);
    ingestor.appendedFrames = journal.backlog.frames;
    metrics.registerJournal(() => journal.backlog);
    ingestor.reportWindow();
    if (deps.series !== null) writer.labelSeries(deps.series);
    writer.onInserted = deps.onInserted;
    writer.start();
    logger.info('ingest ready', { recent_log_ids: loaded, journal_dir: config.journalDir, journal_backlog_records: journal.backlog.records });
    return ingestor;
  }

  /** Journals the batch's records; resolves once they are durable. Throws 400 or 503 when it cannot take them. */
  async ingest(batch: PreparedBatch): Promise<void> {
    // The batch's client log_ids, as text and as words (recentLogIds.ts).
    const { workspaceId, clientLogIds: clientIds, clientLogIdWords: clientIdWords } = batch;
    if (batch.records === 0) return;
    if (this.closing) throw unavailable('shutting_down', 'The service is shutting down; nothing of this batch was stored. Retry after the given delay.', 1);
    const { resolved, eventIds } = await resolvePairs(this.deps.directory, this.deps.metrics, batch);

    let settle!: (journaled: boolean) => void;
    const outcome = new Promise<boolean>((resolve) => (settle = resolve));
    let inFlight = this.inFlight.get(workspaceId);
    if (inFlight === undefined) {
      inFlight = new Map();
      this.inFlight.set(workspaceId, inFlight);
    }
    const claims: string[] = [];
    /** Indexes of the records kept. */
    const kept: number[] = [];
    /** Kept records whose id an earlier request still in flight carries too. */
    const behind: { index: number; before: Promise<boolean> }[] = [];
    let duplicates = 0;
    const remembered = this.recentIds.of(workspaceId);
    for (let i = 0; i < batch.records; i++) {
      if (i > 0 && i % RECORDS_PER_TURN === 0) {
        // A large request (OTLP, remote-write) lets other work in between.
        await nextTurn();
        // Emptied meanwhile by another request (ours had claimed nothing yet): this one's again, or the new one.
        const current = this.inFlight.get(workspaceId);
        if (current === undefined) this.inFlight.set(workspaceId, inFlight);
        else inFlight = current;
      }
      const logId = clientIds[i]!;
      if (logId === '') {
        kept.push(i);
        continue;
      }
      const before = inFlight.get(logId);
      if (before === outcome || remembered.has(clientIdWords, i * 4)) {
        duplicates++;
        continue;
      }
      inFlight.set(logId, outcome);
      claims.push(logId);
      if (before === undefined) kept.push(i);
      else behind.push({ index: i, before });
    }

    let journaled = false;
    try {
      for (const { index, before } of behind) {
        // Carried by an earlier request too: ours only if that one failed.
        if ((await before) || this.recentIds.has(workspaceId, clientIdWords, index * 4)) duplicates++;
        else kept.push(index);
      }
      if (kept.length > 0) {
        const journaledAt = Date.now();
        const payload = await this.turns.run(() => journalPayload(batch, eventIds, journaledAt, kept));
        // A large request becomes several frames, each one the journal can read back (frames.ts).
        const frames = splitPayload(payload, MAX_APPEND_PAYLOAD_BYTES);
        await this.journal.appendFrames(frames, journaledAt);
        this.appendedFrames += frames.length;
        this.writer.wake();
        const withIds = kept.filter((i) => clientIds[i] !== '');
        for (let at = 0; at < withIds.length; at += RECORDS_PER_TURN) {
          if (at > 0) await nextTurn();
          this.recentIds.addAll(workspaceId, clientIdWords, withIds.slice(at, at + RECORDS_PER_TURN), journaledAt);
        }
      }
      journaled = true;
      this.deps.metrics.acceptedRecords.inc(kept.length);
      this.deps.metrics.duplicateRecords.inc(duplicates);
    } catch (err) {
      await withdrawCreated(this.deps.directory, batch, resolved);
      if (err instanceof RecordTooLargeError || err instanceof FrameTooLargeError) {
        this.deps.metrics.rejectedRecords.inc({ reason: 'too_large' }, batch.records);
        throw tooLarge(
          'record_too_large',
          `A record of this batch takes ${err.bytes} bytes in the journal, beyond its bound of ${err.max}; nothing of this batch was stored.`,
        );
      }
      if (err instanceof JournalFullError) {
        this.deps.metrics.rejectedRecords.inc({ reason: 'journal_full' }, batch.records);
        throw unavailable('journal_full', 'The ingest journal is full; nothing of this batch was stored. Retry after the given delay.', 5);
      }
      this.deps.metrics.rejectedRecords.inc({ reason: 'storage_error' }, batch.records);
      if (isOutOfSpace(err)) {
        if (Date.now() - this.outOfSpaceLoggedAt >= 10_000) {
          this.outOfSpaceLoggedAt = Date.now();
          this.deps.logger.error('journal append failed: JOURNAL_DIR is out of space; batches get 503 until the backlog has drained or space is freed', {
            err,
            journal_dir: this.deps.config.journalDir,
          });
        }
        throw unavailable('storage_unavailable', "The ingest journal's disk is full; nothing of this batch was stored. Retry after the given delay.", 5);
      }
      this.deps.logger.error('journal append failed', { err, records: batch.records });
      throw unavailable('storage_unavailable', 'The logs could not be stored. Retry the batch.', 1);
    } finally {
      settle(journaled);
      for (const id of claims) if (inFlight.get(id) === outcome) inFlight.delete(id);
      // Another request may have replaced an emptied map meanwhile: only this one goes.
      if (inFlight.size === 0 && this.inFlight.get(workspaceId) === inFlight) this.inFlight.delete(workspaceId);
      this.reportWindow();
    }
  }

  writerStalledMs(now: number): number {
    return this.writer.stalledMs(now);
  }

  /** Resolves once every record journaled before the call is in ClickHouse (and so in every rollup). */
  caughtUp(): Promise<void> {
    return this.writer.caughtUp(this.appendedFrames);
  }

  /**
   * Runs fn between two inserts (no insert runs meanwhile), e.g. to re-bucket day rollups;
   * rows journaled but not yet inserted are bucketed when inserted, after fn.
   */
  runExclusive<R>(fn: () => Promise<R>): Promise<R> {
    return this.writer.runExclusive(fn);
  }

  /**
   * Shutdown, once no request is in flight: moves the journal into ClickHouse for at most
   * `drainMs`, then stops; what remains is replayed at the next start.
   */
  async close(drainMs: number): Promise<void> {
    this.closing = true;
    await this.writer.stop(drainMs);
    await this.journal.close();
    const left = this.journal.backlog.records;
    if (left > 0) this.deps.logger.warn('ingest stopped with journaled records not yet in ClickHouse; they are replayed at the next start', { records: left });
  }

  private reportWindow(): void {
    this.deps.metrics.dedupWindowSeconds.set(this.recentIds.windowMs() / 1000);
    this.deps.metrics.dedupRememberedIds.set(this.recentIds.size);
  }
}

/** Remembers the ids stored in ClickHouse in the last 10 minutes, so that idempotency survives a restart. */
export async function loadRecentIds(clickhouse: ClickHouseStore, recentIds: RecentLogIds): Promise<number> {
  // Oldest first, as they were remembered at run time, so a capped window keeps the newest.
  const result = await clickhouse.client.query({
    query: `SELECT workspace_id, toString(log_id) AS log_id, toUnixTimestamp64Milli(received_at) AS received_ms
            FROM logs WHERE received_at >= now64(3) - toIntervalMillisecond({window:UInt32})
            ORDER BY received_at`,
    query_params: { window: DEDUP_WINDOW_MS + 60_000 },
    format: 'JSONCompactEachRow',
  });
  let loaded = 0;
  const words = new Int32Array(4);
  for await (const rows of result.stream<[string, string, number]>()) {
    for (const row of rows) {
      const [workspaceId, logId, receivedMs] = row.json();
      recentIds.add(workspaceId, uuidWords(logId, words), 0, receivedMs);
      loaded++;
    }
  }
  return loaded;
}

/** Where a process keeps its journal when JOURNAL_DIR is not set. */
export const defaultJournalDir = (dataDir: string) => path.join(dataDir, 'journal');
