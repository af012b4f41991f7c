// The write-ahead journal: accepted log batches are appended to segment files under
// JOURNAL_DIR and fdatasynced before their request is answered. Appends that arrive while
// an fsync runs share the next one (group commit). The journal writer (journalWriter.ts)
// moves frames into ClickHouse in blocks; its progress is a checkpoint file, and segments
// wholly behind it are deleted. Opening the journal recovers what its segments hold
// (recovery.ts); new appends always go to a new segment, so they never follow a torn tail.
import fs from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../metrics.js';
import { type Checkpoint, CheckpointFile } from './checkpointFile.js';
import { type BlockRange, type FrameEntry, UnconsumedFrames } from './frameIndex.js';
import { encodeFrame } from './frames.js';
import { type FrameSummary, recoverSegment } from './recovery.js';
import { listSegments, readOrCreateId, segmentName, segmentPath } from './segmentFiles.js';
import { SegmentReader } from './segmentReader.js';
import { SyncWorker } from './syncWorker.js';

export interface JournalOptions {
  readonly dir: string;
  /** Bytes of frames not yet in ClickHouse; an append beyond is refused (JournalFullError). */
  readonly maxBytes: number;
  /** A segment is closed and a new one begun past this size. */
  readonly segmentBytes: number;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/** What the journal holds that is not yet in ClickHouse. */
export interface JournalBacklog {
  readonly frames: number;
  readonly bytes: number;
  readonly records: number;
  /** ms since the epoch, of the oldest frame; null when empty. */
  readonly oldestJournaledAt: number | null;
}

export class JournalFullError extends Error {
  constructor(readonly bytes: number) {
    super(`the journal holds ${bytes} bytes not yet in ClickHouse, its limit`);
    this.name = 'JournalFullError';
  }
}

/** Frames of one request encoded between two turns of the event loop. */
const FRAMES_PER_TURN = 4;

/** One frame's payload, in parts, and the records it holds. */
export interface FramePayload {
  readonly parts: readonly Uint8Array[];
  readonly records: number;
}

interface Queued {
  /** Moves to the writer thread when written: its length is kept in `bytes`. */
  readonly frame: Buffer;
  readonly bytes: number;
  readonly records: number;
  readonly journaledAt: number;
  resolve(): void;
  reject(err: unknown): void;
}

export class Journal {
  private readonly unconsumed = new UnconsumedFrames();
  private queue: Queued[] = [];
  private queuedBytes = 0;
  private flushing = false;
  private activeSegment: number;
  private activeSize = 0;
  private readonly worker = new SyncWorker();
  private readonly reader: SegmentReader;
  private closed = false;
  /** The lowest segment number that may still exist on disk. */
  private oldestSegment: number;
  /** False after the active segment could not be opened or was given up (EIO): the next append opens a new one. */
  private segmentOpen = true;
  /** An append failed for want of disk space: once drained, the active segment is closed and deleted. */
  private diskFull = false;

  private constructor(
    private readonly options: JournalOptions,
    private readonly checkpointFile: CheckpointFile,
    /** Tells this journal's blocks from any other's in ClickHouse's deduplication tokens. */
    readonly id: string,
    /** The block a crash interrupted: the writer inserts exactly it again first. */
    readonly interrupted: BlockRange | null,
    firstSegment: number,
    lastSegment: number,
  ) {
    this.activeSegment = lastSegment + 1;
    this.oldestSegment = firstSegment;
    this.reader = new SegmentReader(options.dir);
  }

  /** Opens the journal, recovering what it holds; `summarise` reads each recovered frame's payload. */
  static async open(options: JournalOptions, summarise: (payload: Buffer) => FrameSummary): Promise<Journal> {
    const { dir } = options;
    await fs.mkdir(dir, { recursive: true });
    const id = await readOrCreateId(dir);
    const { file: checkpointFile, checkpoint } = await CheckpointFile.open(dir);
    const segments = await listSegments(dir);
    const done = checkpoint?.done ?? { segment: segments[0] ?? 0, offset: 0 };
    const journal = new Journal(options, checkpointFile, id, checkpoint?.pending ?? null, done.segment, Math.max(segments.at(-1) ?? 0, done.segment));
    const recovery = { dir, logger: options.logger, metrics: options.metrics, summarise };
    for (const segment of segments) {
      if (segment < done.segment) await fs.rm(segmentPath(dir, segment), { force: true });
      else {
        const frames = await recoverSegment(recovery, segment, segment === done.segment ? done.offset : 0, segment === segments.at(-1));
        for (const frame of frames) journal.unconsumed.add(frame);
      }
    }
    await journal.worker.open(segmentPath(dir, journal.activeSegment), dir);
    return journal;
  }

  /** Bytes, records and oldest append time of the frames not yet in ClickHouse. */
  get backlog(): JournalBacklog {
    const { count, bytes, records, oldest } = this.unconsumed;
    return { frames: count, bytes, records, oldestJournaledAt: oldest?.journaledAt ?? null };
  }

  /** Appends one frame of the payload's parts; resolves once it is fdatasynced. Throws JournalFullError at the cap. */
  append(payload: readonly Uint8Array[], records: number, journaledAt: number): Promise<void> {
    return this.appendFrames([{ parts: payload, records }], journaledAt);
  }

  /**
   * Appends the frames of one request together: they go into the same write and fdatasync,
   * and resolve (or fail) together. Refused whole beyond the cap (JournalFullError), or when a
   * frame is beyond MAX_PAYLOAD_BYTES (FrameTooLargeError): nothing is appended then.
   */
  async appendFrames(payloads: readonly FramePayload[], journaledAt: number): Promise<void> {
    if (this.closed) throw new Error('the journal is closed');
    const frames: Buffer[] = [];
    for (const p of payloads) {
      // Each frame is a copy and a checksum of up to 1 MiB: other work goes in between.
      if (frames.length > 0 && frames.length % FRAMES_PER_TURN === 0) await nextTurn();
      frames.push(encodeFrame(p.parts));
    }
    if (this.closed) throw new Error('the journal is closed');
    const bytes = frames.reduce((n, f) => n + f.length, 0);
    if (this.unconsumed.bytes + this.queuedBytes + bytes > this.options.maxBytes) throw new JournalFullError(this.unconsumed.bytes + this.queuedBytes);
    return new Promise<void>((resolve, reject) => {
      // Queued in one go: the flush takes all of them into one write, and settles the request once.
      let left = frames.length;
      const settle = {
        resolve: () => {
          if (--left === 0) resolve();
        },
        reject,
      };
      for (let i = 0; i < frames.length; i++) {
        const frame = frames[i]!;
        this.queue.push({ frame, bytes: frame.length, records: payloads[i]!.records, journaledAt, ...settle });
      }
      this.queuedBytes += bytes;
      void this.flush();
    });
  }

  /**
   * The frames the next block takes: the oldest unconsumed ones, contiguous in one segment,
   * up to the limits (at least one). With `range`, exactly the frames of that range.
   */
  nextFrames(maxRecords: number, maxBytes: number, range: BlockRange | null = null): FrameEntry[] {
    return this.unconsumed.next(maxRecords, maxBytes, range);
  }

  /** The payloads of consecutive frames of one segment, read back from disk and checked; valid until the next read. */
  async read(frames: readonly FrameEntry[]): Promise<Buffer[]> {
    return (await this.readBack(frames)).payloads;
  }

  /**
   * The frames of `frames` that read back whole, and their payloads (valid until the next read).
   * A frame that does not (changed on disk since it was appended) stops nothing but itself: its
   * bytes are kept under damaged/, it is counted and logged, and left out; the writer consumes
   * it with the others, so the frames after it go on.
   */
  async readBack(frames: readonly FrameEntry[]): Promise<{ frames: FrameEntry[]; payloads: Buffer[] }> {
    const { payloads, damaged } = await this.reader.read(frames);
    if (damaged.length === 0) return { frames: [...frames], payloads: payloads as Buffer[] };
    const kept: FrameEntry[] = [];
    const good: Buffer[] = [];
    for (let i = 0; i < frames.length; i++) {
      const payload = payloads[i];
      if (payload) {
        kept.push(frames[i]!);
        good.push(payload);
      }
    }
    for (const { frame, bytes } of damaged) await this.quarantine(frame, bytes);
    return { frames: kept, payloads: good };
  }

  /** Keeps a frame that does not read back under damaged/, counts and logs it. */
  private async quarantine(frame: FrameEntry, bytes: Buffer): Promise<void> {
    const { dir, logger, metrics } = this.options;
    const kept = path.join(dir, 'damaged', `${segmentName(frame.segment)}.${frame.offset}-${frame.end}`);
    try {
      await fs.mkdir(path.dirname(kept), { recursive: true });
      await fs.writeFile(kept, bytes);
    } catch (err) {
      logger.warn('journal: could not keep the bytes of a damaged frame', { kept, err });
    }
    metrics.journalQuarantinedFrames.inc();
    metrics.journalQuarantinedRecords.inc(frame.records);
    metrics.journalDamagedBytes.inc(frame.end - frame.offset);
    logger.error('journal: DAMAGED DATA: a frame did not read back as it was appended; it was set aside (its bytes kept) and the journal goes on', {
      segment: frame.segment,
      offset: frame.offset,
      bytes: frame.end - frame.offset,
      records: frame.records,
      kept,
    });
  }

  /** Makes the writer's intent durable: frames before `done` are stored, `pending` is being inserted. */
  async beginBlock(pending: BlockRange): Promise<void> {
    await this.writeCheckpoint({ done: { segment: pending.segment, offset: pending.from }, pending });
  }

  /** The frames are in ClickHouse: forgets them, and deletes segments wholly behind. */
  async consumed(frames: readonly FrameEntry[]): Promise<void> {
    this.unconsumed.consume(frames);
    if (this.unconsumed.count === 0 && !this.flushing && this.queue.length === 0 && (this.diskFull || this.activeSize >= this.options.segmentBytes / 4)) {
      this.flushing = true;
      try {
        await this.rollOverDrained();
      } finally {
        this.flushing = false;
        if (this.queue.length > 0) void this.flush();
      }
    }
    await this.deleteSegmentsBehind();
  }

  /**
   * Everything is in ClickHouse: when appends failed for want of disk space, or the active
   * segment has grown large, a new segment is begun so that the drained one can be deleted
   * and its space given back (else a full disk would stay full until a segment filled up).
   */
  private async rollOverDrained(): Promise<void> {
    if (this.closed || (this.segmentOpen && this.activeSize === 0)) return;
    try {
      await this.openNextSegment();
      this.diskFull = false;
    } catch (err) {
      this.options.logger.warn('journal: could not begin a new segment after draining; retried at the next append', { err });
    }
    await this.deleteSegmentsBehind();
  }

  /** Deletes the segments wholly behind the oldest unconsumed frame; one that cannot be is tried again next time. */
  private async deleteSegmentsBehind(): Promise<void> {
    const oldestKept = this.unconsumed.oldest?.segment ?? (this.segmentOpen ? this.activeSegment : this.activeSegment + 1);
    for (; this.oldestSegment < oldestKept; this.oldestSegment++) {
      await this.reader.release(this.oldestSegment);
      try {
        await fs.rm(segmentPath(this.options.dir, this.oldestSegment), { force: true });
      } catch (err) {
        this.options.logger.warn('journal: could not delete a consumed segment; tried again later', { segment: this.oldestSegment, err });
        return;
      }
    }
  }

  /** Begins the next segment; the active one stays until it opened (a failure leaves none open). */
  private async openNextSegment(): Promise<void> {
    const next = this.activeSegment + 1;
    this.segmentOpen = false;
    this.activeSize = await this.worker.open(segmentPath(this.options.dir, next), this.options.dir);
    this.activeSegment = next;
    this.segmentOpen = true;
  }

  /** Records that no block is pending: the next start replays from the oldest unconsumed frame (graceful stop). */
  async settled(): Promise<void> {
    const next = this.unconsumed.oldest;
    await this.writeCheckpoint({
      done: next ? { segment: next.segment, offset: next.offset } : { segment: this.activeSegment, offset: this.activeSize },
      pending: null,
    });
  }

  /** Stops appending once queued appends are written; unconsumed frames stay for the next start. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.flushing || this.queue.length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await this.reader.close();
    await this.worker.close();
    await this.checkpointFile.close();
  }

  /** Group commit: every frame queued meanwhile goes into the next write and fdatasync. */
  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        const bytes = batch.reduce((n, q) => n + q.bytes, 0);
        try {
          if (!this.segmentOpen || (this.activeSize > 0 && this.activeSize + bytes > this.options.segmentBytes)) await this.openNextSegment();
          const stop = this.options.metrics.journalFsyncSeconds.startTimer();
          const before = this.activeSize;
          this.activeSize = await this.worker.append(batch.map((q) => q.frame));
          stop();
          let offset = before;
          for (const q of batch) {
            const entry = { segment: this.activeSegment, offset, end: offset + q.bytes, records: q.records, journaledAt: q.journaledAt };
            offset = entry.end;
            this.unconsumed.add(entry);
          }
          this.queuedBytes -= bytes;
          for (const q of batch) q.resolve();
        } catch (err) {
          this.queuedBytes -= bytes;
          // The writer thread cut a failed append back off the file. Out of space: the segment
          // goes on once there is room. Any other failure (EIO): it is given up for a new one.
          if (isOutOfSpace(err)) this.diskFull = true;
          else this.segmentOpen = false;
          for (const q of batch) q.reject(err);
        }
      }
      // Out of space with everything in ClickHouse: no insert will come to free it, so now.
      if (this.diskFull && this.unconsumed.count === 0) await this.rollOverDrained();
    } finally {
      this.flushing = false;
    }
    if (this.queue.length > 0) void this.flush();
  }

  private writeCheckpoint(checkpoint: Checkpoint): Promise<void> {
    return this.checkpointFile.write(checkpoint);
  }
}

/** Whether a disk write failed for want of space (the disk, or the user's quota). */
export function isOutOfSpace(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}
