// Background work of ROLE=worker (and ROLE=all): each task runs on its own schedule over the
// same domain functions the API calls, and stops cleanly at shutdown. Tasks coordinate with
// other worker processes through Postgres, never through this process's memory.
import type { BackgroundTask } from './backgroundTask.js';
import { GroupSender } from './delivery/groupSender.js';
import { DeliveryWorker } from './delivery/worker.js';
import { escalationWorker } from './escalation/worker.js';
import { dataDrivenEvaluation } from './evaluation/dataDrivenEvaluation.js';
import { evaluationWorker } from './evaluation/evaluationWorker.js';
import { idempotencyKeyExpiry } from './idempotency/expiry.js';
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
  const escalation = escalationWorker({
    postgres: stores.postgres,
    settings: { minuteMs: config.delivery.escalationMinuteMs },
    intervalMs: config.delivery.escalationPollIntervalMs,
    logger,
  });
  return [evaluation, dataDriven, escalation, deliveryWorker, new GroupSender(delivery, pollIntervalMs), idempotencyKeyExpiry(stores.postgres, logger)];
}
