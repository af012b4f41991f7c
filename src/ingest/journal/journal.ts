// The write-ahead journal: accepted log batches are appended to segment files under
// JOURNAL_DIR and fdatasynced before their request is answered. Appends that arrive while
// an fsync runs share the next one (group commit). The journal writer (journalWriter.ts)
// moves frames into ClickHouse in blocks; its progress is a checkpoint file, and segments
// wholly behind it are deleted.
//
// Opening the journal scans every segment from the checkpoint on. Part of a frame at the very
// end of the newest segment is a torn write of a crash: nobody was answered for it, and it is
// cut off. Damage anywhere else, and a complete frame at the end whose checksum fails (it was
// written whole, so maybe acknowledged), is reported loudly (error log, metric, the bytes
// kept under damaged/), and the valid frames after it are kept. New appends always go to a new
// segment, so they never follow a torn tail.
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../metrics.js';
import { type Checkpoint, CheckpointFile, writeDurably } from './checkpointFile.js';
import { encodeFrame, isTornWrite, scanFrames } from './frames.js';
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

/** One appended frame, as the journal writer takes it. */
export interface FrameEntry {
  readonly segment: number;
  readonly offset: number;
  readonly end: number;
  readonly records: number;
  /** ms since the epoch when it was appended. */
  readonly journaledAt: number;
}

/** A range of frames of one segment that the writer is inserting (or was, when a crash cut it short). */
export interface BlockRange {
  readonly segment: number;
  readonly from: number;
  readonly to: number;
}

/** What a frame's payload says of itself, read back at recovery. */
export interface FrameSummary {
  readonly records: number;
  readonly journaledAt: number;
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

interface Queued {
  /** Moves to the writer thread when written: its length is kept in `bytes`. */
  readonly frame: Buffer;
  readonly bytes: number;
  readonly records: number;
  readonly journaledAt: number;
  resolve(): void;
  reject(err: unknown): void;
}

const SEGMENT_NAME = /^(\d{16})\.seg$/;
const segmentName = (n: number) => `${String(n).padStart(16, '0')}.seg`;
const ID_FILE = 'journal.id';

export class Journal {
  /** Frames appended and not yet consumed, oldest first, from `head`. */
  private frames: FrameEntry[] = [];
  private head = 0;
  private unconsumedBytes = 0;
  private unconsumedRecords = 0;
  private queue: Queued[] = [];
  private queuedBytes = 0;
  private flushing = false;
  private activeSegment: number;
  private activeSize = 0;
  private readonly worker = new SyncWorker();
  private reader: { segment: number; handle: fs.FileHandle } | null = null;
  private readBuffer = Buffer.alloc(0);
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
  }

  /** Opens the journal, recovering what it holds; `summarise` reads each recovered frame's payload. */
  static async open(options: JournalOptions, summarise: (payload: Buffer) => FrameSummary): Promise<Journal> {
    const { dir } = options;
    await fs.mkdir(dir, { recursive: true });
    const id = await readOrCreateId(dir);
    const { file: checkpointFile, checkpoint } = await CheckpointFile.open(dir);
    const segments = (await fs.readdir(dir))
      .map((name) => SEGMENT_NAME.exec(name))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    const done = checkpoint?.done ?? { segment: segments[0] ?? 0, offset: 0 };
    const journal = new Journal(options, checkpointFile, id, checkpoint?.pending ?? null, done.segment, Math.max(segments.at(-1) ?? 0, done.segment));
    for (const segment of segments) {
      if (segment < done.segment) await fs.rm(path.join(dir, segmentName(segment)), { force: true });
      else await journal.recoverSegment(segment, segment === done.segment ? done.offset : 0, segment === segments.at(-1), summarise);
    }
    await journal.worker.open(journal.segmentPath(journal.activeSegment), dir);
    journal.report();
    return journal;
  }

  /** Bytes, records and oldest append time of the frames not yet in ClickHouse. */
  get backlog(): JournalBacklog {
    return {
      frames: this.frames.length - this.head,
      bytes: this.unconsumedBytes,
      records: this.unconsumedRecords,
      oldestJournaledAt: this.frames[this.head]?.journaledAt ?? null,
    };
  }

  /** Appends one frame of the payload's parts; resolves once it is fdatasynced. Throws JournalFullError at the cap. */
  append(payload: readonly Uint8Array[], records: number, journaledAt: number): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the journal is closed'));
    const frame = encodeFrame(...payload);
    if (this.unconsumedBytes + this.queuedBytes + frame.length > this.options.maxBytes) {
      return Promise.reject(new JournalFullError(this.unconsumedBytes + this.queuedBytes));
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ frame, bytes: frame.length, records, journaledAt, resolve, reject });
      this.queuedBytes += frame.length;
      void this.flush();
    });
  }

  /**
   * The frames the next block takes: the oldest unconsumed ones, contiguous in one segment,
   * up to the limits (at least one). With `range`, exactly the frames of that range.
   */
  nextFrames(maxRecords: number, maxBytes: number, range: BlockRange | null = null): FrameEntry[] {
    const taken: FrameEntry[] = [];
    let records = 0;
    for (let i = this.head; i < this.frames.length; i++) {
      const f = this.frames[i]!;
      if (range) {
        if (f.segment !== range.segment || f.offset >= range.to) break;
        if (f.offset >= range.from) taken.push(f);
        continue;
      }
      const previous = taken[taken.length - 1];
      // Contiguous frames of one segment (damage recovered around leaves gaps), within the limits.
      if (previous && (f.segment !== previous.segment || f.offset !== previous.end || records + f.records > maxRecords || f.end - taken[0]!.offset > maxBytes))
        break;
      taken.push(f);
      records += f.records;
    }
    return taken;
  }

  /**
   * The payloads of consecutive frames of one segment, read back from disk and checked; in
   * the journal's read buffer, valid until the next read (kept from read to read for the
   * reason the writer keeps its insert body, journalWriter.ts).
   */
  async read(frames: readonly FrameEntry[]): Promise<Buffer[]> {
    if (frames.length === 0) return [];
    const first = frames[0]!;
    const last = frames[frames.length - 1]!;
    if (this.reader?.segment !== first.segment) {
      await this.reader?.handle.close();
      this.reader = null;
      this.reader = { segment: first.segment, handle: await fs.open(this.segmentPath(first.segment), constants.O_RDONLY) };
    }
    const length = last.end - first.offset;
    if (this.readBuffer.length < length) this.readBuffer = Buffer.allocUnsafeSlow(length);
    const bytes = this.readBuffer.subarray(0, length);
    const { bytesRead } = await this.reader.handle.read(bytes, 0, bytes.length, first.offset);
    const scanned = scanFrames(bytes.subarray(0, bytesRead), first.offset);
    if (scanned.damage.length > 0 || scanned.frames.length !== frames.length) {
      throw new Error(`journal segment ${first.segment} changed on disk between ${first.offset} and ${last.end}: ${JSON.stringify(scanned.damage)}`);
    }
    return scanned.frames.map((f) => f.payload);
  }

  /** Makes the writer's intent durable: frames before `done` are stored, `pending` is being inserted. */
  async beginBlock(pending: BlockRange): Promise<void> {
    await this.writeCheckpoint({ done: { segment: pending.segment, offset: pending.from }, pending });
  }

  /** The frames are in ClickHouse: forgets them, and deletes segments wholly behind. */
  async consumed(frames: readonly FrameEntry[]): Promise<void> {
    for (const f of frames) {
      if (this.frames[this.head] !== f) throw new Error('journal frames consumed out of order');
      this.head++;
      this.unconsumedBytes -= f.end - f.offset;
      this.unconsumedRecords -= f.records;
    }
    if (this.head > 1024 && this.head * 2 > this.frames.length) {
      this.frames = this.frames.slice(this.head);
      this.head = 0;
    }
    if (this.head === this.frames.length && !this.flushing && this.queue.length === 0 && (this.diskFull || this.activeSize >= this.options.segmentBytes / 4)) {
      this.flushing = true;
      try {
        await this.rollOverDrained();
      } finally {
        this.flushing = false;
        if (this.queue.length > 0) void this.flush();
      }
    }
    await this.deleteSegmentsBehind();
    this.report();
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
    const oldestKept = this.frames[this.head]?.segment ?? (this.segmentOpen ? this.activeSegment : this.activeSegment + 1);
    for (; this.oldestSegment < oldestKept; this.oldestSegment++) {
      if (this.reader?.segment === this.oldestSegment) {
        await this.reader.handle.close().catch(() => {});
        this.reader = null;
      }
      try {
        await fs.rm(this.segmentPath(this.oldestSegment), { force: true });
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
    this.activeSize = await this.worker.open(this.segmentPath(next), this.options.dir);
    this.activeSegment = next;
    this.segmentOpen = true;
  }

  /** Records that no block is pending: the next start replays from the oldest unconsumed frame (graceful stop). */
  async settled(): Promise<void> {
    const next = this.frames[this.head];
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
    await this.reader?.handle.close();
    await this.worker.close();
    await this.checkpointFile.close();
  }

  private segmentPath(segment: number): string {
    return path.join(this.options.dir, segmentName(segment));
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
            this.frames.push(entry);
            this.unconsumedBytes += q.bytes;
            this.unconsumedRecords += q.records;
          }
          this.queuedBytes -= bytes;
          this.report();
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
      if (this.diskFull && this.head === this.frames.length) await this.rollOverDrained();
    } finally {
      this.flushing = false;
    }
    if (this.queue.length > 0) void this.flush();
  }

  private async recoverSegment(segment: number, from: number, newest: boolean, summarise: (payload: Buffer) => FrameSummary): Promise<void> {
    const file = this.segmentPath(segment);
    const bytes = (await fs.readFile(file)).subarray(from);
    const { frames, damage } = scanFrames(bytes, from);
    for (const d of damage) {
      const size = d.end - d.offset;
      if (newest && d.end === from + bytes.length && isTornWrite(bytes.subarray(d.offset - from))) {
        this.options.logger.warn('journal: cut off a torn write at the end of the newest segment (never acknowledged)', {
          segment,
          offset: d.offset,
          bytes: size,
        });
        await fs.truncate(file, d.offset);
        continue;
      }
      const kept = path.join(this.options.dir, 'damaged', `${segmentName(segment)}.${d.offset}-${d.end}`);
      await fs.mkdir(path.dirname(kept), { recursive: true });
      await fs.writeFile(kept, bytes.subarray(d.offset - from, d.end - from));
      this.options.metrics.journalDamagedBytes.inc(size);
      this.options.logger.error('journal: DAMAGED DATA in the journal; its records cannot be replayed (the bytes are kept)', {
        segment,
        offset: d.offset,
        bytes: size,
        kept,
      });
    }
    for (const f of frames) {
      const { records, journaledAt } = summarise(f.payload);
      this.frames.push({ segment, offset: f.offset, end: f.end, records, journaledAt });
      this.unconsumedBytes += f.end - f.offset;
      this.unconsumedRecords += records;
    }
  }

  private writeCheckpoint(checkpoint: Checkpoint): Promise<void> {
    return this.checkpointFile.write(checkpoint);
  }

  private report(): void {
    const { metrics } = this.options;
    metrics.journalBacklogBytes.set(this.unconsumedBytes);
    metrics.journalBacklogRecords.set(this.unconsumedRecords);
  }
}

async function readOrCreateId(dir: string): Promise<string> {
  const file = path.join(dir, ID_FILE);
  try {
    const id = (await fs.readFile(file, 'utf8')).trim();
    if (/^[0-9a-f-]{36}$/.test(id)) return id;
    throw new Error(`${file} does not hold a journal id`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const id = randomUUID();
  await writeDurably(file, id);
  return id;
}

/** Whether a disk write failed for want of space (the disk, or the user's quota). */
export function isOutOfSpace(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}
