// Group commit: requests queue their rows, and a writer stores many requests' rows in one
// insert. Each request's promise settles only when the insert holding its rows has finished
// (resolved) or failed (rejected), so a 200 always means stored. The queue is bounded: a
// batch that does not fit is refused at once and nothing of it is queued.
//
// A flush starts when `maxBatchRows` rows wait, or when the oldest waiting row has waited
// `flushIntervalMs`. Up to `maxConcurrentFlushes` inserts run at once: an insert's cost is
// mostly fixed (file creation for new parts), and two overlap well. `runExclusive` runs
// other work while no insert runs, holding new ones back until it is done.
//
// One request must not fail the others: when a write fails for a reason tied to the rows
// it carried (`isolates(err)`), the batch is split in halves and each is written again,
// down to the single request that holds the bad rows, which alone gets the error.

export class QueueFullError extends Error {
  constructor(readonly pendingRows: number) {
    super(`ingest queue is full (${pendingRows} rows pending)`);
    this.name = 'QueueFullError';
  }
}

export interface GroupCommitOptions<T> {
  /** Rows queued or being written; beyond this, enqueue refuses. */
  readonly maxPendingRows: number;
  readonly maxBatchRows: number;
  readonly flushIntervalMs: number;
  readonly maxConcurrentFlushes: number;
  /** Stores one batch: the rows of several requests, in arrival order. */
  readonly write: (batch: readonly (readonly T[])[]) => Promise<void>;
  /** Called whenever the number of pending rows changes. */
  readonly onPendingChange?: (pendingRows: number) => void;
  /** True when a failed write stored nothing and failed for some of its rows: split and retry. */
  readonly isolates?: (err: unknown) => boolean;
}

interface Waiting<T> {
  readonly rows: readonly T[];
  readonly enqueuedAt: number;
  resolve(): void;
  reject(err: unknown): void;
}

export class GroupCommitQueue<T> {
  private waiting: Waiting<T>[] = [];
  private waitingRows = 0;
  private writingRows = 0;
  private flushesRunning = 0;
  private exclusiveRunning = false;
  private readonly exclusiveWaiting: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private draining = false;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly options: GroupCommitOptions<T>) {}

  get pendingRows(): number {
    return this.waitingRows + this.writingRows;
  }

  /** Resolves once `rows` are stored; rejects with QueueFullError at once when they do not fit. */
  enqueue(rows: readonly T[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    if (this.pendingRows + rows.length > this.options.maxPendingRows) {
      return Promise.reject(new QueueFullError(this.pendingRows));
    }
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ rows, enqueuedAt: Date.now(), resolve, reject });
      this.waitingRows += rows.length;
      this.changed();
      this.pump();
    });
  }

  /** Runs fn once no insert is running; inserts wait until fn is done. */
  async runExclusive<R>(fn: () => Promise<R>): Promise<R> {
    await new Promise<void>((resolve) => {
      this.exclusiveWaiting.push(resolve);
      this.pump();
    });
    try {
      return await fn();
    } finally {
      this.exclusiveRunning = false;
      this.pump();
    }
  }

  /** Writes everything queued without waiting for the interval; resolves when nothing is pending. */
  async drain(): Promise<void> {
    this.draining = true;
    this.pump();
    while (this.pendingRows > 0 || this.flushesRunning > 0) {
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    }
  }

  /** Starts whatever may start now: exclusive work first, else flushes up to the limit. */
  private pump(): void {
    if (this.exclusiveRunning) return;
    if (this.exclusiveWaiting.length > 0) {
      // New flushes wait, so that exclusive work is not starved by a steady stream of rows.
      if (this.flushesRunning === 0) {
        this.exclusiveRunning = true;
        this.exclusiveWaiting.shift()!();
      }
      return;
    }
    while (this.flushesRunning < this.options.maxConcurrentFlushes && this.waitingRows > 0) {
      const dueIn = this.waiting[0]!.enqueuedAt + this.options.flushIntervalMs - Date.now();
      if (!this.draining && this.waitingRows < this.options.maxBatchRows && dueIn > 0) {
        this.timer ??= setTimeout(() => {
          this.timer = null;
          this.pump();
        }, dueIn);
        break;
      }
      this.startFlush();
    }
    if (this.pendingRows === 0 && this.flushesRunning === 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /** Takes whole requests, oldest first, up to maxBatchRows (at least one), and writes them. */
  private startFlush(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch: Waiting<T>[] = [];
    let rows = 0;
    while (this.waiting.length > 0 && (batch.length === 0 || rows + this.waiting[0]!.rows.length <= this.options.maxBatchRows)) {
      const next = this.waiting.shift()!;
      batch.push(next);
      rows += next.rows.length;
    }
    this.waitingRows -= rows;
    this.writingRows += rows;
    this.flushesRunning++;
    // writeIsolating settles every request itself and never rejects.
    void this.writeIsolating(batch).finally(() => {
      this.writingRows -= rows;
      this.flushesRunning--;
      this.changed();
      this.pump();
    });
  }

  /** Writes the requests; settles each with its own outcome. */
  private async writeIsolating(batch: readonly Waiting<T>[]): Promise<void> {
    try {
      await this.options.write(batch.map((w) => w.rows));
      for (const w of batch) w.resolve();
    } catch (err) {
      if (batch.length === 1 || this.options.isolates?.(err) !== true) {
        for (const w of batch) w.reject(err);
        return;
      }
      const half = Math.ceil(batch.length / 2);
      await this.writeIsolating(batch.slice(0, half));
      await this.writeIsolating(batch.slice(half));
    }
  }

  private changed(): void {
    this.options.onPendingChange?.(this.pendingRows);
  }
}
