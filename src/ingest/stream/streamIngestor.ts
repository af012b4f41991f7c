// The ingest path on a shared stream (JOURNAL_URL): resolve each record's event definition and
// publish the batch, answered once JetStream has acknowledged it. Nothing is kept locally: a
// ROLE=ingest process is stateless, any request may reach any of them, and idempotency by
// log_id is kept by the stream's writer (streamWriter.ts), which sees every process's
// publishes. In processes holding ClickHouse (ROLE all, worker) the same object runs the writer.
import type { BlockSeriesLabels } from '../logsBlockInsert.js';
import type { IngestConfig } from '../../config.js';
import { tooLarge, unavailable } from '../../errors.js';
import type { EventDirectory } from '../../events/eventDirectory.js';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../metrics.js';
import type { ClickHouseStore } from '../../stores/clickhouse.js';
import type { Ingestor, InsertListener } from '../ingestor.js';
import { journalPayload, type PreparedBatch, RecordTooLargeError, splitPayload } from '../journaledBatch.js';
import type { JournalBacklog } from '../journal/journal.js';
import { resolvePairs, withdrawCreated } from '../pairs.js';
import { MeanRecords } from './meanRecords.js';
import { NatsStream, StreamFullError } from './natsStream.js';
import { StreamWriter } from './streamWriter.js';

export interface StreamIngestorDeps {
  readonly config: IngestConfig;
  readonly directory: EventDirectory;
  readonly metrics: Metrics;
  readonly logger: Logger;
  /** Set where this process writes the stream into ClickHouse (ROLE all, worker). */
  readonly clickhouse: ClickHouseStore | null;
  /** The writer's series labels, set before it takes its first message (see LogIngestorDeps.series). */
  readonly series: BlockSeriesLabels | null;
  /** Told of each block the writer inserts, from the first (see LogIngestorDeps.onInserted). */
  readonly onInserted: InsertListener | null;
}

const BACKLOG_POLL_MS = 1_000;

export class StreamIngestor implements Ingestor {
  private closing = false;
  private polling = false;
  private lastPublished = 0;
  private backlog: JournalBacklog = { frames: 0, bytes: 0, records: 0, oldestJournaledAt: null };
  private readonly poller: NodeJS.Timeout;
  /** Records per published message, for the backlog estimate where no writer runs. */
  private readonly meanRecords = new MeanRecords();

  private constructor(
    private readonly deps: StreamIngestorDeps,
    readonly stream: NatsStream,
    private readonly writer: StreamWriter | null,
  ) {
    this.poller = setInterval(() => void this.pollBacklog(), BACKLOG_POLL_MS).unref();
    deps.metrics.registerJournal(() => this.backlog);
  }

  static async open(deps: StreamIngestorDeps): Promise<StreamIngestor> {
    const { config, logger, metrics } = deps;
    // Read before the writer takes its first message (see LogIngestor.open); none where no writer runs.
    if (deps.clickhouse !== null) await deps.series?.load();
    const stream = await NatsStream.open({
      url: config.journalUrl!,
      stream: config.journalStream,
      maxBytes: config.journalMaxBytes,
      maxAgeS: config.journalMaxAgeS,
      ackWaitMs: config.journalAckWaitMs,
      logger,
    });
    try {
      const writer =
        deps.clickhouse &&
        (await StreamWriter.open(
          stream,
          deps.clickhouse,
          deps.directory,
          { blockRecords: config.insertBlockRecords, blockBytes: 64 * 1024 * 1024, intervalMs: config.flushIntervalMs, dedupMaxIds: config.dedupMaxIds },
          metrics,
          logger,
        ));
      const ingestor = new StreamIngestor(deps, stream, writer);
      if (writer !== null && deps.series !== null) writer.labelSeries(deps.series);
      if (writer !== null) writer.onInserted = deps.onInserted;
      writer?.start();
      await ingestor.pollBacklog();
      logger.info('ingest ready on the journal stream', { stream: stream.name, writer: writer !== null });
      return ingestor;
    } catch (err) {
      await stream.close();
      throw err;
    }
  }

  async ingest(batch: PreparedBatch): Promise<void> {
    if (batch.records === 0) return;
    if (this.closing) throw unavailable('shutting_down', 'The service is shutting down; nothing of this batch was stored. Retry after the given delay.', 1);
    const { resolved, eventIds } = await resolvePairs(this.deps.directory, this.deps.metrics, batch);
    const { metrics, logger } = this.deps;
    try {
      const messages = this.messagesOf(batch, eventIds);
      for (const part of messages) this.lastPublished = Math.max(this.lastPublished, await this.stream.publish(part));
      this.meanRecords.add(batch.records, messages.length);
      metrics.acceptedRecords.inc(batch.records);
    } catch (err) {
      await withdrawCreated(this.deps.directory, batch, resolved).catch(() => {});
      if (err instanceof RecordTooLargeError) {
        metrics.rejectedRecords.inc({ reason: 'too_large' }, batch.records);
        throw tooLarge(
          'record_too_large',
          `A record of this batch takes ${err.bytes} bytes, beyond the ${err.max} bytes a journal message may hold; nothing of this batch was stored.`,
        );
      }
      if (err instanceof StreamFullError) {
        metrics.rejectedRecords.inc({ reason: 'journal_full' }, batch.records);
        throw unavailable('journal_full', 'The ingest journal is full; nothing of this batch was stored. Retry after the given delay.', 5);
      }
      metrics.rejectedRecords.inc({ reason: 'storage_error' }, batch.records);
      logger.warn('journal stream: publish failed', { err: String(err), records: batch.records });
      throw unavailable('storage_unavailable', 'The logs could not be stored. Retry the batch.', 1);
    }
  }

  /**
   * The batch as one message, or, past the server's max_payload, as several (whole records
   * each). A batch in parts is no longer all-or-nothing if a later part fails: its records
   * with a log_id are counted once when retried; see docs/ingest.md. A record alone beyond a
   * message throws RecordTooLargeError, before anything is published.
   */
  private messagesOf(batch: PreparedBatch, eventIds: readonly string[]): Buffer[] {
    const parts = journalPayload(batch, eventIds, Date.now());
    return splitPayload(parts, this.stream.maxMessagePayload).map((m) => Buffer.concat(m.parts));
  }

  writerStalledMs(now: number): number | null {
    return this.writer ? this.writer.stalledMs(now, this.backlog.frames, this.backlog.oldestJournaledAt) : null;
  }

  caughtUp(): Promise<void> {
    return this.writer ? this.writer.caughtUp(this.lastPublished) : Promise.resolve();
  }

  runExclusive<R>(fn: () => Promise<R>): Promise<R> {
    return this.writer ? this.writer.runExclusive(fn) : fn();
  }

  /** Readiness: JetStream answers. */
  ping(): Promise<void> {
    return this.stream.ping();
  }

  async close(drainMs: number): Promise<void> {
    this.closing = true;
    clearInterval(this.poller);
    await this.writer?.stop(drainMs);
    await this.stream.close();
  }

  /** The stream's backlog for /metrics: messages and bytes as JetStream counts them, records estimated from the mean records a message. */
  private async pollBacklog(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const { messages, bytes, oldestAt } = await this.stream.backlog();
      const perMessage = (this.writer?.meanRecords ?? this.meanRecords).value;
      this.backlog = { frames: messages, bytes, records: Math.round(messages * perMessage), oldestJournaledAt: oldestAt };
    } catch (err) {
      // Unreachable or slow: the last figures stay (/readyz says whether NATS answers).
      this.deps.logger.debug('journal stream: reading the backlog failed', { err: String(err) });
    } finally {
      this.polling = false;
    }
  }
}
