// Background work of ROLE=worker (and ROLE=all): each task runs on its own schedule over the
// same domain functions the API calls, and stops cleanly at shutdown. Tasks coordinate with
// other worker processes through Postgres, never through this process's memory.
import type { BackgroundTask } from './backgroundTask.js';
import { DeliveryWorker } from './delivery/worker.js';
import { dataDrivenEvaluation } from './evaluation/dataDrivenEvaluation.js';
import { evaluationWorker } from './evaluation/evaluationWorker.js';
import type { Services } from './services.js';

/** The tasks a worker process runs, in start order (stopped in reverse). */
export function workerTasks(services: Services): BackgroundTask[] {
  const { config, stores, logger, metrics, evaluator, delivery, insertSignal } = services;
  const dataDriven = dataDrivenEvaluation({ evaluator, signal: insertSignal, logger, metrics });
  const evaluation = evaluationWorker({ evaluator, postgres: stores.postgres, intervalMs: config.evaluation.intervalMs, logger, metrics });
  const { pollIntervalMs, concurrency, destinationConcurrency, workspaceConcurrency } = config.delivery;
  const deliveryWorker = new DeliveryWorker(delivery, {
    pollIntervalMs,
    concurrency,
    perDestination: destinationConcurrency,
    perWorkspace: workspaceConcurrency,
  });
  return [evaluation, dataDriven, deliveryWorker];
}
