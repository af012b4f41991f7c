// The shell both journal writers share: the local journal's (journalWriter.ts) and the
// stream's (stream/streamWriter.ts). Each moves its journal's payloads into ClickHouse in
// blocks, paced (insertPacing.ts), built and inserted by one LogsBlockInserter; around that,
// the same loop: work run between two blocks (runExclusive), callers waiting until it caught
// up, a sleep that new records cut short, a stop that drains for a while, a repair retried
// until it passes. What differs, where the blocks come from and how they are acknowledged,
// is each writer's own.
import type { EventDirectory } from '../events/eventDirectory.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import { InsertPacing } from './insertPacing.js';
import { eventIdsIn } from './journaledBatch.js';
import type { InsertListener } from './ingestor.js';
import { type BlockSeriesLabels, LogsBlockInserter, pauseBeforeRetry } from './logsBlockInsert.js';

export abstract class WriterShell {
  protected stopping = false;
  protected drainUntil = 0;
  private wakeUp: (() => void) | null = null;
  private readonly exclusive: { run(): Promise<void> }[] = [];
  /** Callers of caughtUp, each with the position it waits for. */
  protected readonly caughtUpWaiters: { target: number; resolve(): void }[] = [];
  /** When the writer last moved a block into ClickHouse, or found nothing to move (ms since the epoch). */
  protected progressAt = Date.now();
  /** Builds each block's insert rows (in one buffer kept from block to block) and inserts them. */
  protected readonly inserter: LogsBlockInserter;
  protected readonly pacing: InsertPacing;
  /** Told the events of each block once it is in ClickHouse (and so in every rollup): evaluation is driven by it. */
  onInserted: InsertListener | null = null;

  constructor(
    protected readonly clickhouse: ClickHouseStore,
    protected readonly directory: EventDirectory,
    protected readonly metrics: Metrics,
    protected readonly logger: Logger,
    intervalMs: number,
  ) {
    this.inserter = new LogsBlockInserter(clickhouse, metrics, (eventId) => directory.timezoneOf(eventId));
    this.pacing = new InsertPacing(intervalMs);
  }

  /** Derives each record's series as its row is built. */
  labelSeries(series: BlockSeriesLabels): void {
    this.inserter.series = series;
  }

  /** New records wait: the sleep between blocks ends. */
  wake(): void {
    this.wakeUp?.();
  }

  /** Runs fn between two inserts (no insert runs meanwhile). */
  runExclusive<R>(fn: () => Promise<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.exclusive.push({ run: () => fn().then(resolve, reject) });
      this.wake();
    });
  }

  /** Resolves once settleWaiters finds `target` reached. */
  protected waitUntil(target: number): Promise<void> {
    return new Promise((resolve) => {
      this.caughtUpWaiters.push({ target, resolve });
      this.wake();
    });
  }

  /** Resolves the callers of caughtUp whose target is `reached`. */
  protected settleWaiters(reached: (target: number) => boolean): void {
    for (let i = this.caughtUpWaiters.length - 1; i >= 0; i--) {
      if (reached(this.caughtUpWaiters[i]!.target)) this.caughtUpWaiters.splice(i, 1)[0]!.resolve();
    }
  }

  /** From now on the loop drains for at most `drainMs`, then ends. */
  protected beginStop(drainMs: number): void {
    this.stopping = true;
    this.drainUntil = Date.now() + drainMs;
  }

  /** Stopping, and the time to drain is over: a block not yet in is left for later. */
  protected givingUp(): boolean {
    return this.stopping && Date.now() >= this.drainUntil;
  }

  /** Runs the work waiting for a moment between two blocks. */
  protected async runExclusives(): Promise<void> {
    while (this.exclusive.length > 0) await this.exclusive.shift()!.run();
  }

  /** Whether a block goes in now, however small: someone waits for it, or the writer stops. */
  protected hurried(): boolean {
    return this.stopping || this.caughtUpWaiters.length > 0 || this.exclusive.length > 0;
  }

  /** Waits `ms` (Infinity: until woken), or until woken. */
  protected sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = Number.isFinite(ms) ? setTimeout(() => done(), Math.max(1, ms)).unref() : null;
      const done = () => {
        if (timer) clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
      this.wakeUp = done;
    });
  }

  /** The events the payloads' records refer to, their timezones learnt (the rows' day_start needs them). */
  protected async learnEventsOf(payloads: readonly Buffer[]): Promise<Set<string>> {
    const eventIds = new Set<string>();
    for (const payload of payloads) eventIdsIn(payload, eventIds);
    await this.directory.learnTimezones([...eventIds]);
    return eventIds;
  }

  /** Runs `attempt` until it passes, as an insert is retried (logging each failure); false when stopped before. */
  protected async retried(attempt: () => Promise<unknown>, failure: string): Promise<boolean> {
    for (let n = 0; ; n++) {
      try {
        await attempt();
        return true;
      } catch (err) {
        if (this.givingUp()) return false;
        this.logger.warn(failure, { attempt: n, err });
        await pauseBeforeRetry(n);
      }
    }
  }
}
