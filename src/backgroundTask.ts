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
