// Background work of ROLE=worker (and ROLE=all): each task runs on its own schedule over the
// same domain functions the API calls, and stops cleanly at shutdown. Tasks coordinate with
// other worker processes through Postgres, never through this process's memory.
import type { Config } from './config.js';
import { deliverySettings } from './delivery/settings.js';
import { DeliveryWorker } from './delivery/worker.js';
import { evaluationWorker } from './evaluation/evaluationWorker.js';
import { PolicyEvaluator } from './evaluation/evaluator.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { Stores } from './stores/index.js';

export interface WorkerTaskDeps {
  readonly config: Config;
  readonly stores: Stores;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

export interface BackgroundTask {
  readonly name: string;
  /** Starts the schedule; returns at once. */
  start(): void;
  /** Stops scheduling and waits for the work in progress to finish. */
  stop(): Promise<void>;
}

/** The tasks a worker process runs, in start order (stopped in reverse). */
export function workerTasks(deps: WorkerTaskDeps): BackgroundTask[] {
  const { config, stores, logger, metrics } = deps;
  const evaluator = new PolicyEvaluator({ postgres: stores.postgres, clickhouse: stores.clickhouse, graceMs: config.evalGraceMs });
  const evaluation = evaluationWorker({ evaluator, postgres: stores.postgres, intervalMs: config.evalIntervalMs, logger, metrics });
  const delivery = new DeliveryWorker(
    { postgres: stores.postgres, settings: deliverySettings(config), retryScheduleMs: config.delivery.retryScheduleMs, metrics, logger },
    { pollIntervalMs: config.delivery.pollIntervalMs, concurrency: config.delivery.concurrency },
  );
  return [evaluation, delivery];
}
