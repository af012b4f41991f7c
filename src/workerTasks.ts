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
import { handoffWorker } from './oncall/handoffWorker.js';
import { receivedAlertLeases } from './alertsources/leaseWorker.js';
import type { Services } from './services.js';

/** How often received alerts past their lease are looked for (alertsources/leaseWorker.ts). */
const LEASE_POLL_MS = 1000;

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
  const handoffs = handoffWorker({ postgres: stores.postgres, intervalMs: config.delivery.escalationPollIntervalMs, logger, now: services.oncall.now });
  return [
    evaluation,
    dataDriven,
    escalation,
    handoffs,
    deliveryWorker,
    new GroupSender(delivery, pollIntervalMs),
    receivedAlertLeases(stores.postgres, logger, LEASE_POLL_MS),
    idempotencyKeyExpiry(stores.postgres, logger),
  ];
}
