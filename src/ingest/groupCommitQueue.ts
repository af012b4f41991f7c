// Group commit: requests queue their rows, and one writer stores many requests' rows in one
// insert. Each request's promise settles only when the insert holding its rows has finished
// (resolved) or failed (rejected), so a 200 always means stored. The queue is bounded: a
// batch that does not fit is refused at once and nothing of it is queued.
//
// Flushes run one at a time. A flush starts when `maxBatchRows` rows wait, or when the
// oldest waiting row has waited `flushIntervalMs`; while one insert runs, the next batch
// gathers. `runExclusive` runs other work in the same line, between two flushes.

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
  /** Stores one batch: the rows of several requests, in arrival order. */
  readonly write: (batch: readonly (readonly T[])[]) => Promise<void>;
  /** Called whenever the number of pending rows changes. */
  readonly onPendingChange?: (pendingRows: number) => void;
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
  private flushQueued = false;
  private timer: NodeJS.Timeout | null = null;
  private draining = false;
  /** Tail of the line of flushes and exclusive work. */
  private tail: Promise<unknown> = Promise.resolve();
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly options: GroupCommitOptions<T>) {}

  get pendingRows(): number {
    return this.waitingRows + this.writingRows;
  }

  /** Resolves once `rows` are stored; throws QueueFullError at once when they do not fit. */
  enqueue(rows: readonly T[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    if (this.pendingRows + rows.length > this.options.maxPendingRows) {
      return Promise.reject(new QueueFullError(this.pendingRows));
    }
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ rows, enqueuedAt: Date.now(), resolve, reject });
      this.waitingRows += rows.length;
      this.changed();
      this.schedule();
    });
  }

  /** Runs fn when no insert is running, and keeps the next one waiting until fn is done. */
  runExclusive<R>(fn: () => Promise<R>): Promise<R> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => {});
    return run;
  }

  /** Writes everything queued without waiting for the interval; resolves when nothing is pending. */
  async drain(): Promise<void> {
    this.draining = true;
    this.schedule();
    while (this.pendingRows > 0 || this.flushQueued) {
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    }
  }

  private schedule(): void {
    if (this.flushQueued || this.waitingRows === 0) return;
    const dueIn = this.waiting[0]!.enqueuedAt + this.options.flushIntervalMs - Date.now();
    if (this.draining || this.waitingRows >= this.options.maxBatchRows || dueIn <= 0) {
      this.startFlush();
    } else if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.schedule();
      }, dueIn);
    }
  }

  private startFlush(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.flushQueued = true;
    void this.runExclusive(() => this.flushOnce()).finally(() => {
      this.flushQueued = false;
      this.schedule();
      if (this.pendingRows === 0 && !this.flushQueued) for (const wake of this.idleWaiters.splice(0)) wake();
    });
  }

  /** Takes whole requests, oldest first, up to maxBatchRows (at least one), and writes them. */
  private async flushOnce(): Promise<void> {
    const batch: Waiting<T>[] = [];
    let rows = 0;
    while (this.waiting.length > 0 && (batch.length === 0 || rows + this.waiting[0]!.rows.length <= this.options.maxBatchRows)) {
      const next = this.waiting.shift()!;
      batch.push(next);
      rows += next.rows.length;
    }
    if (batch.length === 0) return;
    this.waitingRows -= rows;
    this.writingRows += rows;
    try {
      await this.options.write(batch.map((w) => w.rows));
      for (const w of batch) w.resolve();
    } catch (err) {
      for (const w of batch) w.reject(err);
    } finally {
      this.writingRows -= rows;
      this.changed();
    }
  }

  private changed(): void {
    this.options.onPendingChange?.(this.pendingRows);
  }
}
