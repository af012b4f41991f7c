// Reads frames back from their segment for the writer's inserts, checking them again: one
// segment open at a time, and one buffer kept from read to read (for the reason the writer
// keeps its insert body, journalWriter.ts).
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import type { FrameEntry } from './frameIndex.js';
import { frameAt } from './frames.js';
import { segmentPath } from './segmentFiles.js';

export class SegmentReader {
  private opened: { segment: number; handle: fs.FileHandle } | null = null;
  private buffer = Buffer.alloc(0);

  constructor(private readonly dir: string) {}

  /**
   * The payloads of consecutive frames of one segment (in the reader's buffer, valid until the
   * next read), null for a frame that does not read back as it was appended, whose bytes are
   * then given in `damaged` (copied).
   */
  async read(frames: readonly FrameEntry[]): Promise<{ payloads: (Buffer | null)[]; damaged: { frame: FrameEntry; bytes: Buffer }[] }> {
    if (frames.length === 0) return { payloads: [], damaged: [] };
    const first = frames[0]!;
    const last = frames[frames.length - 1]!;
    if (this.opened?.segment !== first.segment) {
      await this.opened?.handle.close();
      this.opened = null;
      this.opened = { segment: first.segment, handle: await fs.open(segmentPath(this.dir, first.segment), constants.O_RDONLY) };
    }
    const length = last.end - first.offset;
    if (this.buffer.length < length) this.buffer = Buffer.allocUnsafeSlow(length);
    const bytes = this.buffer.subarray(0, length);
    const { bytesRead } = await this.opened.handle.read(bytes, 0, bytes.length, first.offset);
    const read = bytes.subarray(0, bytesRead);
    // Each frame is taken where the index says it is (the frames of a block may have gaps
    // between them, where recovery found damage): one that is not a valid frame of exactly its
    // length there changed on disk since it was appended.
    const payloads: (Buffer | null)[] = [];
    const damaged: { frame: FrameEntry; bytes: Buffer }[] = [];
    for (const frame of frames) {
      const at = frame.offset - first.offset;
      const scanned = frame.end - first.offset <= read.length ? frameAt(read, at) : null;
      if (scanned && scanned.end === frame.end - first.offset) payloads.push(scanned.payload);
      else {
        payloads.push(null);
        damaged.push({ frame, bytes: Buffer.from(read.subarray(Math.min(at, read.length), Math.min(frame.end - first.offset, read.length))) });
      }
    }
    return { payloads, damaged };
  }

  /** Lets go of the segment if it is the one open (it is about to be deleted). */
  async release(segment: number): Promise<void> {
    if (this.opened?.segment !== segment) return;
    await this.opened.handle.close().catch(() => {});
    this.opened = null;
  }

  async close(): Promise<void> {
    await this.opened?.handle.close();
  }
}
