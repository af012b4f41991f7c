// The writer of the stream journal: one durable pull consumer that every process holding
// ClickHouse (ROLE all, worker) shares. Messages are held until `blockRecords` wait or their
// insert is due (at most one every `intervalMs`: insertPacing.ts), then inserted as one
// block whose insert_deduplication_token is derived from the stream sequences it holds (an
// insert retried after a failure is stored once), and acknowledged only after the insert:
// acknowledged messages leave the stream.
//
// Idempotency by log_id (docs/api.md) is kept here, not in the ingest processes: every
// publish of every ingest process passes through this consumer in stream order, so a retry
// that reached another ingest process is seen after the record it repeats, whichever
// process took either. The window of ids is loaded from ClickHouse at start (as the local
// journal's is) and each block's kept ids are added to it.
//
// A message the stream delivers again was taken by a writer that died (or lost its
// acknowledgement) and may be stored in part: it goes through redelivered.ts. So does one
// delivered afresh below a sequence this writer already received (a NATS server that lost
// its consumer's state in a kill delivers again as new), and one stranded in the stream
// below the consumer's ack floor (strandedMessages.ts).
//
// The loop's shell (pacing, exclusive work, waiters, sleep, drain) is the local journal
// writer's too: ../writerShell.ts.
import type { Consumer, ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import type { EventDirectory } from '../../events/eventDirectory.js';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../metrics.js';
import type { ClickHouseStore } from '../../stores/clickhouse.js';
import { decodeBatch, payloadOf } from '../journaledBatch.js';
import { pauseBeforeRetry } from '../logsBlockInsert.js';
import { loadRecentIds } from '../logIngestor.js';
import { RecentLogIds, uuidWords } from '../recentLogIds.js';
import type { NatsStream } from './natsStream.js';
import { MeanRecords } from './meanRecords.js';
import { RecentSequences } from './recentSequences.js';
import { storeRedelivered } from './redelivered.js';
import { STRANDED_SWEEP_MS, StrandedMessages } from './strandedMessages.js';
import { WriterShell } from '../writerShell.js';

export interface StreamWriterOptions {
  readonly blockRecords: number;
  readonly blockBytes: number;
  readonly intervalMs: number;
  readonly dedupMaxIds: number;
}

interface Held {
  readonly msg: JsMsg;
  readonly payload: Buffer;
  readonly records: number;
}

/**
 * How long one pull request lives. The client also waits this long between its checks that
 * the consumer exists after a reconnect, so it bounds how soon the writer takes messages
 * again once a restarted NATS server is back (the client's default, 30 s, made the writer
 * idle for half a minute).
 */
const PULL_EXPIRES_MS = 5_000;
/** Stored sequences remembered: far more messages than arrive within an ack wait. */
const STORED_SEQUENCES_KEPT = 100_000;

const countLines = (payload: Buffer) => {
  let n = 0;
  for (let at = payload.indexOf(10); at >= 0; at = payload.indexOf(10, at + 1)) n++;
  return n;
};

export class StreamWriter extends WriterShell {
  private held: Held[] = [];
  private heldRecords = 0;
  private redelivered: Held[] = [];
  /** Messages of the block being inserted: still ours until acknowledged. */
  private inserting: readonly Held[] = [];
  private messages: ConsumerMessages | null = null;
  private pump: Promise<void> | null = null;
  private running: Promise<void> | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private sweepQueued = false;
  private readonly stranded: StrandedMessages;
  private roomFor: (() => void) | null = null;
  /** Sequences of the messages this writer stored and acknowledged lately. */
  private readonly stored = new RecentSequences(STORED_SEQUENCES_KEPT);
  /** The highest stream sequence this writer has received. */
  private lastReceived = 0;
  /** Records per message seen by this writer (the backlog's records are estimated from it). */
  readonly meanRecords = new MeanRecords();
  private readonly words = new Int32Array(4);

  private constructor(
    private readonly stream: NatsStream,
    private readonly consumer: Consumer,
    private readonly recentIds: RecentLogIds,
    clickhouse: ClickHouseStore,
    directory: EventDirectory,
    private readonly options: StreamWriterOptions,
    metrics: Metrics,
    logger: Logger,
  ) {
    super(clickhouse, directory, metrics, logger, options.intervalMs);
    this.stranded = new StrandedMessages(stream, (payloads) => this.runExclusive(() => this.repair(payloads)), logger);
  }

  static async open(
    stream: NatsStream,
    clickhouse: ClickHouseStore,
    directory: EventDirectory,
    options: StreamWriterOptions,
    metrics: Metrics,
    logger: Logger,
  ): Promise<StreamWriter> {
    const recentIds = new RecentLogIds(options.dedupMaxIds);
    const loaded = await loadRecentIds(clickhouse, recentIds);
    const consumer = await stream.consumer();
    logger.info('journal stream writer ready', { stream: stream.name, consumer: stream.consumerName, recent_log_ids: loaded });
    return new StreamWriter(stream, consumer, recentIds, clickhouse, directory, options, metrics, logger);
  }

  start(): void {
    this.pump ??= this.receive();
    this.running ??= this.loop();
    // Messages held or being inserted stay ours: JetStream redelivers them only if we go silent.
    this.heartbeat ??= setInterval(() => {
      for (const h of [...this.held, ...this.redelivered, ...this.inserting]) h.msg.working();
    }, this.stream.ackWaitMs / 3).unref();
    this.sweepTimer ??= setInterval(() => this.queueSweep(), STRANDED_SWEEP_MS).unref();
  }

  /** Looks for stranded messages (one sweep at a time); any found are stored again between two blocks. */
  private queueSweep(): void {
    if (this.sweepQueued || this.stopping) return;
    this.sweepQueued = true;
    this.stranded
      .sweep()
      .catch((err: unknown) => this.logger.debug('journal stream: the sweep for stranded messages failed; the next one retries', { err: String(err) }))
      .finally(() => (this.sweepQueued = false));
  }

  /** Resolves once every message up to stream sequence `seq` that this writer took is in ClickHouse. */
  caughtUp(seq: number): Promise<void> {
    if (this.isCaughtUp(seq)) return Promise.resolve();
    return this.waitUntil(seq);
  }

  /** Stops taking messages, inserts what it holds for at most `drainMs`; the rest is redelivered to a writer later. */
  async stop(drainMs: number): Promise<void> {
    this.beginStop(drainMs);
    // Closing the pull may wait for its request to expire: not waited for beyond a moment
    // (what it still brings is left unacknowledged, for the next writer).
    const closed = Promise.all([this.messages?.close().catch(() => {}), this.pump]);
    this.roomFor?.();
    this.wake();
    await this.running;
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
  }

  private isCaughtUp(seq: number): boolean {
    if (this.lastReceived < seq) return false;
    const below = (hs: readonly Held[]) => hs.some((h) => h.msg.seq <= seq);
    return !below(this.held) && !below(this.redelivered) && !below(this.inserting);
  }

  /** Takes messages from the consumer while fewer than two blocks' worth are held. */
  private async receive(): Promise<void> {
    while (!this.stopping) {
      try {
        this.messages = await this.consumer.consume({ max_messages: 1_000, expires: PULL_EXPIRES_MS });
        for await (const msg of this.messages) {
          const payload = Buffer.from(msg.data.buffer, msg.data.byteOffset, msg.data.byteLength);
          const held: Held = { msg, payload, records: countLines(payload) };
          const again = msg.info.redelivered || msg.seq <= this.lastReceived;
          this.lastReceived = Math.max(this.lastReceived, msg.seq);
          this.meanRecords.add(held.records);
          if (again) this.redelivered.push(held);
          else {
            this.held.push(held);
            this.heldRecords += held.records;
          }
          this.wake();
          while (this.heldRecords >= 2 * this.options.blockRecords && !this.stopping) await new Promise<void>((resolve) => (this.roomFor = resolve));
          if (this.stopping) break;
        }
      } catch (err) {
        if (this.stopping) break;
        this.logger.warn('journal stream: consuming failed; retrying', { err });
        await pauseBeforeRetry(5);
      }
    }
  }

  private async loop(): Promise<void> {
    for (;;) {
      await this.runExclusives();
      if (this.stopping && (Date.now() >= this.drainUntil || (this.held.length === 0 && this.redelivered.length === 0))) return;
      if (this.redelivered.length > 0) {
        const taken = this.freshCopies(this.redelivered);
        this.redelivered = [];
        if (taken.length > 0 && !(await this.storeAgain(taken))) return;
        continue;
      }
      const block = this.nextBlock();
      const records = block.reduce((n, h) => n + h.records, 0);
      const hurry = this.hurried();
      const dueIn = block.length === 0 ? Infinity : this.pacing.dueIn();
      if (block.length === 0 || (records < this.options.blockRecords && dueIn > 0 && !hurry)) {
        await this.sleep(dueIn);
        continue;
      }
      this.pacing.started();
      this.held.splice(0, block.length);
      this.heldRecords -= records;
      this.roomFor?.();
      this.inserting = block;
      const done = await this.insertBlock(block);
      this.inserting = [];
      if (!done) return;
      this.settleCaughtUp();
    }
  }

  private nextBlock(): Held[] {
    const block: Held[] = [];
    let records = 0;
    let bytes = 0;
    for (const h of this.held) {
      if (block.length > 0 && (records + h.records > this.options.blockRecords || bytes + h.payload.length > this.options.blockBytes)) break;
      block.push(h);
      records += h.records;
      bytes += h.payload.length;
    }
    return block;
  }

  private settleCaughtUp(): void {
    this.settleWaiters((seq) => this.isCaughtUp(seq));
  }

  /** The block's payloads without the records whose client log_id the window holds (each kept id is added to it). */
  private withoutRepeats(block: readonly Held[]): { payloads: Buffer[]; duplicates: number } {
    let duplicates = 0;
    const payloads = block.map((h) => {
      const batch = decodeBatch(h.payload);
      const ids = this.recentIds.of(batch.workspaceId);
      const lines = batch.lines.filter((line) => {
        const first = line.indexOf('\t');
        const second = line.indexOf('\t', first + 1);
        const third = line.indexOf('\t', second + 1);
        if (third === second + 1) return true; // no client log_id: it cannot repeat
        uuidWords(line.slice(second + 1, third), this.words);
        if (ids.has(this.words, 0)) {
          duplicates++;
          return false;
        }
        this.recentIds.add(batch.workspaceId, this.words, 0, batch.journaledAt);
        return true;
      });
      return lines.length === batch.lines.length ? h.payload : payloadOf({ ...batch, lines });
    });
    return { payloads, duplicates };
  }

  /** Inserts the block and acknowledges its messages; false when stopped before it passed (the messages are then redelivered later). */
  private async insertBlock(block: readonly Held[]): Promise<boolean> {
    const { payloads, duplicates } = this.withoutRepeats(block);
    const eventIds = await this.learnEventsOf(payloads);
    if (!(await this.insertParts(block, payloads))) return false;
    this.acknowledge(block);
    this.metrics.duplicateRecords.inc(duplicates);
    this.onInserted?.(eventIds);
    return true;
  }

  private insertParts(block: readonly Held[], payloads: readonly Buffer[]): Promise<boolean> {
    return this.inserter.insertSplitting(block, payloads, {
      token: (run) => `${this.stream.name}@${this.stream.createdAt}:${run[0]!.msg.seq}-${run[run.length - 1]!.msg.seq}:${run.length}`,
      records: (_, parts) => parts.reduce((n, p) => n + countLines(p), 0),
      setAside: async (held, payload) => {
        const batch = decodeBatch(payload);
        this.metrics.journalRefusedRecords.inc(batch.lines.length);
        this.logger.error('ClickHouse refused rows of a journaled batch; the batch was dropped from the stream and the journal goes on', {
          workspace_id: batch.workspaceId,
          stream_seq: held.msg.seq,
          records: batch.lines.length,
          first_line: batch.lines[0]?.slice(0, 500),
        });
      },
      givingUp: () => this.givingUp(),
      failed: (err, attempt, token, records) => {
        if (attempt === 0 || attempt % 10 === 0) this.logger.warn('journal stream: insert failed; retrying the same block', { token, records, attempt, err });
      },
    });
  }

  /**
   * How long this writer has stored nothing while the stream holds messages for it
   * (`backlogMessages`, from the stream's state): 0 when none waits.
   */
  stalledMs(now: number, backlogMessages: number, oldestAt: number | null): number {
    if (backlogMessages === 0 || oldestAt === null) return 0;
    return Math.max(0, now - Math.max(this.progressAt, oldestAt));
  }

  private acknowledge(messages: readonly Held[]): void {
    this.progressAt = Date.now();
    for (const h of messages) {
      h.msg.ack();
      this.stored.add(h.msg.seq);
    }
  }

  /**
   * Of messages delivered again, those still to be stored. A message whose ack wait ran out
   * while it sat in the client's buffer comes twice. One this writer stored already is only
   * acknowledged again: its repair would rebuild rollups (a delete, then an insert) for a
   * message the stream no longer holds, so a kill in between would leave them short for good
   * (seen: the minute rollup 968 records short, logs exact). A copy still held here waits no
   * longer: the one delivered again takes its place (records without a log_id would otherwise
   * be stored twice).
   */
  private freshCopies(again: readonly Held[]): Held[] {
    const fresh = again.filter((h) => {
      if (!this.stored.has(h.msg.seq)) return true;
      h.msg.ack();
      return false;
    });
    const seqs = new Set(fresh.map((h) => h.msg.seq));
    const superseded = this.held.filter((h) => seqs.has(h.msg.seq));
    if (superseded.length > 0) {
      this.held = this.held.filter((h) => !seqs.has(h.msg.seq));
      this.heldRecords -= superseded.reduce((n, h) => n + h.records, 0);
      this.roomFor?.();
    }
    return fresh;
  }

  /** Redelivered messages, made to hold once, then acknowledged; false when stopped first. */
  private async storeAgain(taken: readonly Held[]): Promise<boolean> {
    this.inserting = taken;
    const stored = await this.repair(taken.map((h) => h.payload));
    if (stored) this.acknowledge(taken);
    this.inserting = [];
    if (stored) this.settleCaughtUp();
    return stored;
  }

  /** Makes the payloads' records hold exactly once in `logs` and the rollups (redelivered.ts), retrying; false when stopped first. */
  private repair(payloads: readonly Buffer[]): Promise<boolean> {
    const batches = payloads.map(decodeBatch);
    return this.retried(async () => {
      await this.learnEventsOf(payloads);
      const outcome = await storeRedelivered(this.clickhouse, batches, (id) => this.directory.timezoneOf(id), this.logger, this.inserter.series);
      for (const [workspaceId, ids] of outcome.keptIds) for (const id of ids) this.recentIds.add(workspaceId, uuidWords(id, this.words), 0);
      this.metrics.ingestedRecords.inc(outcome.inserted);
      this.metrics.duplicateRecords.inc(outcome.duplicates);
    }, 'journal stream: storing redelivered messages failed; retrying');
  }
}
