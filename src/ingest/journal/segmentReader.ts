// Reads frames back from their segment for the writer's inserts, checking them again: one
// segment open at a time, and one buffer kept from read to read (for the reason the writer
// keeps its insert body, journalWriter.ts).
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import type { FrameEntry } from './frameIndex.js';
import { scanFrames } from './frames.js';
import { segmentPath } from './segmentFiles.js';

export class SegmentReader {
  private opened: { segment: number; handle: fs.FileHandle } | null = null;
  private buffer = Buffer.alloc(0);

  constructor(private readonly dir: string) {}

  /** The payloads of consecutive frames of one segment; in the reader's buffer, valid until the next read. */
  async read(frames: readonly FrameEntry[]): Promise<Buffer[]> {
    if (frames.length === 0) return [];
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
    const scanned = scanFrames(bytes.subarray(0, bytesRead), first.offset);
    if (scanned.damage.length > 0 || scanned.frames.length !== frames.length) {
      throw new Error(`journal segment ${first.segment} changed on disk between ${first.offset} and ${last.end}: ${JSON.stringify(scanned.damage)}`);
    }
    return scanned.frames.map((f) => f.payload);
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
