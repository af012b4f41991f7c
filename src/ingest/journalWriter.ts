// Moves journaled batches into ClickHouse in large blocks: as soon as `blockRecords` wait, or
// when their insert is due (at most one every `intervalMs`, insertPacing.ts: a batch after a
// quiet spell goes in at once, the others wait for the rest of the interval). Before each
// insert its frame range is made durable in the journal's checkpoint, and its
// insert_deduplication_token is derived from that range, so a block inserted again after a
// crash (or after a failure part-way) is stored once in logs and in every rollup. A failed
// insert is retried with the same token until it passes.
//
// A block ClickHouse refuses for its rows is split in halves, down to the one request
// (frame) that holds the bad rows: that frame is set aside (its payload kept under
// refused/, counted, logged with its position) and the rest flows on. Each part's token is
// its own range, and the split is the same on a replay, so nothing is counted twice. The
// validation in front refuses whatever ClickHouse would, so this is a last resort.
//
// A block that fails on the journal's side (its checkpoint or a read refused by a full or
// failing disk, ENOSPC, EIO) is tried again, exactly the same range, until it passes: the
// loop never ends for it, so the process does not either.
//
// The loop's shell (pacing, exclusive work, waiters, sleep, drain) is the stream writer's too: writerShell.ts.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { EventDirectory } from '../events/eventDirectory.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import { repairInterruptedBlock } from './interruptedBlock.js';
import { decodeBatch } from './journaledBatch.js';
import type { BlockRange, FrameEntry } from './journal/frameIndex.js';
import type { Journal } from './journal/journal.js';
import { pauseBeforeRetry } from './logsBlockInsert.js';
import { WriterShell } from './writerShell.js';

export interface JournalWriterOptions {
  readonly blockRecords: number;
  readonly blockBytes: number;
  readonly intervalMs: number;
}

export class JournalWriter extends WriterShell {
  private running: Promise<void> | null = null;
  /** Frames appended and consumed since this process started (recovered frames count as appended). */
  private consumedFrames = 0;
  /** The last block failed and may be stored in part: it stays pending in the checkpoint. */
  private unsettled = false;

  constructor(
    private readonly journal: Journal,
    clickhouse: ClickHouseStore,
    directory: EventDirectory,
    private readonly options: JournalWriterOptions,
    metrics: Metrics,
    logger: Logger,
    private readonly dir: string,
  ) {
    super(clickhouse, directory, metrics, logger, options.intervalMs);
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** How long no block has gone into ClickHouse while frames wait (0 when none waits); a block in the works counts as no progress. */
  stalledMs(now: number): number {
    const oldest = this.journal.backlog.oldestJournaledAt;
    if (oldest === null) return 0;
    // Frames journaled after the last progress have waited only since they came.
    return Math.max(0, now - Math.max(this.progressAt, oldest));
  }

  /** Resolves once every frame appended before the call is in ClickHouse. */
  caughtUp(appendedFrames: number): Promise<void> {
    if (this.consumedFrames >= appendedFrames) return Promise.resolve();
    return this.waitUntil(appendedFrames);
  }

  /**
   * Stops after draining the journal for at most `drainMs`: the block running then is finished
   * (or left pending for the replay at the next start), and whatever remains is replayed then.
   */
  async stop(drainMs: number): Promise<void> {
    this.beginStop(drainMs);
    this.wake();
    await this.running;
    if (this.unsettled) return;
    // Without it the next start replays the last block under its own token: stored once still.
    await this.journal.settled().catch((err) => this.logger.warn('journal: could not record the clean stop', { err }));
  }

  private async loop(): Promise<void> {
    /** The range that must go next exactly as it is: the block a crash interrupted, or one that failed part-way. */
    let again: BlockRange | null = this.journal.interrupted;
    let repairAgain = again !== null;
    let failures = 0;
    for (;;) {
      await this.runExclusives();
      if (this.stopping && (Date.now() >= this.drainUntil || this.journal.backlog.records === 0)) return;
      // The block a crash interrupted goes again first, exactly as it was (same range, same token).
      const frames = this.journal.nextFrames(this.options.blockRecords, this.options.blockBytes, again);
      const repair = repairAgain && frames.length > 0;
      const hurry = this.hurried() || again !== null;
      again = null;
      repairAgain = false;
      const records = frames.reduce((n, f) => n + f.records, 0);
      const dueIn = frames.length === 0 ? Infinity : this.pacing.dueIn();
      if (frames.length === 0) this.progressAt = Date.now();
      if (frames.length === 0 || (records < this.options.blockRecords && dueIn > 0 && !hurry)) {
        await this.sleep(dueIn);
        continue;
      }
      this.pacing.started();
      try {
        await this.insertBlock(frames, repair);
        failures = 0;
      } catch (err) {
        // Part of it may be in ClickHouse under its parts' tokens: the same range goes again.
        this.unsettled = true;
        again = { segment: frames[0]!.segment, from: frames[0]!.offset, to: frames[frames.length - 1]!.end };
        repairAgain = repair;
        if (failures === 0 || failures % 10 === 0) this.logger.error('journal: a block could not be moved on (journal disk?); retrying it', { err, failures });
        await pauseBeforeRetry(failures);
        failures++;
      }
    }
  }

  /** `interrupted`: the block a crash cut short, inserted again; it is then checked and repaired (interruptedBlock.ts). */
  private async insertBlock(frames: FrameEntry[], interrupted: boolean): Promise<void> {
    const first = frames[0]!;
    await this.journal.beginBlock({ segment: first.segment, from: first.offset, to: frames[frames.length - 1]!.end });
    // A frame that does not read back is set aside there: the others go in, and all are consumed.
    const { frames: readable, payloads } = await this.journal.readBack(frames);
    const eventIds = await this.learnEventsOf(payloads);
    this.unsettled = true;
    if (readable.length > 0 && !(await this.insertParts(readable, payloads))) return; // stopping: left pending for the replay
    if (interrupted && !(await this.repair(payloads))) return; // stopping: left pending, repaired at the next start
    this.unsettled = false;
    await this.journal.consumed(frames);
    this.progressAt = Date.now();
    this.consumedFrames += frames.length;
    this.onInserted?.(eventIds);
    this.settleWaiters((target) => target <= this.consumedFrames);
  }

  /** Retried until it passes, as an insert is (the block stays pending meanwhile); false when stopped before. */
  private repair(payloads: readonly Buffer[]): Promise<boolean> {
    const batches = payloads.map(decodeBatch);
    return this.retried(
      () => repairInterruptedBlock(this.clickhouse, batches, (id) => this.directory.timezoneOf(id), this.logger, this.inserter.series),
      'journal: repairing the interrupted block failed; retrying',
    );
  }

  /** Inserts the frames, splitting around rows ClickHouse refuses; false when stopped before it passed. */
  private insertParts(frames: readonly FrameEntry[], payloads: readonly Buffer[]): Promise<boolean> {
    return this.inserter.insertSplitting(frames, payloads, {
      token: (run) => `${this.journal.id}-${run[0]!.segment}-${run[0]!.offset}-${run[run.length - 1]!.end}`,
      records: (run) => run.reduce((n, f) => n + f.records, 0),
      setAside: (frame, payload) => this.setAside(frame, payload),
      givingUp: () => this.givingUp(),
      failed: (err, attempt, token, records) => {
        if (attempt === 0 || attempt % 10 === 0) this.logger.warn('journal insert failed; retrying the same block', { token, records, attempt, err });
      },
    });
  }

  private async setAside(frame: FrameEntry, payload: Buffer): Promise<void> {
    const batch = decodeBatch(payload);
    const file = path.join(this.dir, 'refused', `${frame.segment}-${frame.offset}.log`);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, [`${batch.workspaceId}\t${batch.journaledAt}`, ...batch.lines].join('\n'));
    this.metrics.journalRefusedRecords.inc(frame.records);
    this.logger.error('ClickHouse refused rows of a journaled batch; the batch was set aside and the journal goes on', {
      workspace_id: batch.workspaceId,
      segment: frame.segment,
      offset: frame.offset,
      records: frame.records,
      kept: file,
    });
  }
}
