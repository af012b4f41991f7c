/** Background work of a worker process (ROLE=worker or all): runs on its own schedule, stops cleanly at shutdown. */
export interface BackgroundTask {
  readonly name: string;
  /** Starts the schedule; returns at once. */
  start(): void;
  /** Stops scheduling and waits for the work in progress to finish. */
  stop(): Promise<void>;
}
