import type { Logger } from './logger.js';

/** Background work of a worker process (ROLE=worker or all): runs on its own schedule, stops cleanly at shutdown. */
export interface BackgroundTask {
  readonly name: string;
  /** Starts the schedule; returns at once. */
  start(): void;
  /** Stops scheduling and waits for the work in progress to finish. */
  stop(): Promise<void>;
}

/**
 * Waits for a task's work in progress at stop, for at most `ms`: a store that went away
 * mid-query never answers, and shutdown must not wait on it. Whatever did not finish was not
 * committed, so the next run (here or in another worker) does it again. True when it finished.
 */
export async function finishedWithin(work: Promise<unknown> | null, ms: number): Promise<boolean> {
  if (work === null) return true;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const finished = work.then(
    () => true,
    () => true,
  );
  const result = await Promise.race([finished, bound]);
  clearTimeout(timer);
  return result;
}

export interface PeriodicTaskOptions {
  readonly name: string;
  /** From the end of one run to the start of the next. */
  readonly intervalMs: number;
  /** From start() to the first run; intervalMs unless given. */
  readonly firstRunAfterMs?: number;
  /** One run. Its work must be safe to cut short (nothing half-committed): stop() does not wait forever. */
  readonly run: () => Promise<void>;
  readonly logger: Logger;
  /** The log line (at error) of a run that failed; the loop goes on with the next run. */
  readonly failureMessage: string;
  /** How long stop() waits for a run in progress at most (DEFAULT_STOP_WAIT_MS unless given). */
  readonly stopWaitMs?: number;
}

/** How long stop() waits for a run in progress unless a task says otherwise. */
export const DEFAULT_STOP_WAIT_MS = 15_000;

/**
 * A task that runs `run` every `intervalMs` (counted from the end of the run before, so runs
 * never overlap). stop() lets no run start after it and waits for the run in progress, up
 * to stopWaitMs (a store that went away never answers; then it logs that the run was left
 * and returns). A run that fails is logged and the next one comes as usual. Its timer never
 * keeps the process alive by itself.
 */
export function periodicTask(options: PeriodicTaskOptions): BackgroundTask {
  const { name, intervalMs, run, logger, failureMessage } = options;
  let state: 'new' | 'started' | 'stopped' = 'new';
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  async function runOnce(): Promise<void> {
    try {
      await run();
    } catch (err) {
      logger.error(failureMessage, { task: name, err });
    }
  }

  function schedule(delayMs: number): void {
    if (state !== 'started') return;
    timer = setTimeout(() => {
      timer = null;
      running = runOnce().finally(() => {
        running = null;
        schedule(intervalMs);
      });
    }, delayMs);
    timer.unref();
  }

  return {
    name,
    start() {
      if (state !== 'new') return;
      state = 'started';
      schedule(options.firstRunAfterMs ?? intervalMs);
    },
    async stop() {
      state = 'stopped';
      if (timer) clearTimeout(timer);
      timer = null;
      if (!(await finishedWithin(running, options.stopWaitMs ?? DEFAULT_STOP_WAIT_MS))) {
        logger.warn(`${name} stopped before its run finished; the next run redoes it`, { task: name });
      }
    },
  };
}
