// The frames the journal holds that are not yet in ClickHouse, oldest first: what the
// writer's next block takes, what it has consumed, and what the backlog amounts to.

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

export class UnconsumedFrames {
  /** Consumed frames stay before `head` until they are half the array. */
  private frames: FrameEntry[] = [];
  private head = 0;
  private totalBytes = 0;
  private totalRecords = 0;

  get count(): number {
    return this.frames.length - this.head;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  get records(): number {
    return this.totalRecords;
  }

  /** The oldest frame not yet consumed, if any. */
  get oldest(): FrameEntry | undefined {
    return this.frames[this.head];
  }

  add(entry: FrameEntry): void {
    this.frames.push(entry);
    this.totalBytes += entry.end - entry.offset;
    this.totalRecords += entry.records;
  }

  /**
   * The frames the next block takes: the oldest unconsumed ones, contiguous in one segment,
   * up to the limits (at least one). With `range`, exactly the frames of that range.
   */
  next(maxRecords: number, maxBytes: number, range: BlockRange | null): FrameEntry[] {
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

  /** Forgets the frames, which must be the oldest ones, in order. */
  consume(frames: readonly FrameEntry[]): void {
    for (const f of frames) {
      if (this.frames[this.head] !== f) throw new Error('journal frames consumed out of order');
      this.head++;
      this.totalBytes -= f.end - f.offset;
      this.totalRecords -= f.records;
    }
    if (this.head > 1024 && this.head * 2 > this.frames.length) {
      this.frames = this.frames.slice(this.head);
      this.head = 0;
    }
  }
}
