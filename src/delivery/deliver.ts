// One send of one attempt, shared by the worker and the test operation: send through the
// channel, decide what follows (retryPolicy.nextStep), record it in one short transaction,
// then count and log it. The attempt row already exists (status pending) before the send.
import type { DestinationConfig } from '../destinations/types.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { PostgresStore } from '../stores/postgres.js';
import { completeAttempt, type AttemptKind } from './attempts.js';
import { CHANNEL_SENDERS } from './channels/index.js';
import { failure, nextStep, type NextStep, type Outcome } from './retryPolicy.js';
import type { DeliverySettings, Notification } from './types.js';

export interface DeliveryDeps {
  readonly postgres: PostgresStore;
  readonly settings: DeliverySettings;
  /** Base delays of the retries; the length + 1 is the number of tries. */
  readonly retryScheduleMs: readonly number[];
  readonly metrics: Metrics;
  readonly logger: Logger;
}

export interface AttemptToSend {
  readonly attemptId: string;
  readonly workspaceId: string;
  readonly kind: AttemptKind;
  readonly attempt: number;
  readonly destination: DestinationConfig & { readonly destination_id: string; readonly enabled: boolean };
  readonly notification: Notification | null;
  readonly ownerEmail: string | null;
}

export interface SendResult {
  readonly outcome: Outcome;
  readonly step: NextStep;
  /** False when another worker had already completed the attempt. */
  readonly recorded: boolean;
}

async function sendOnce(deps: DeliveryDeps, item: AttemptToSend): Promise<Outcome> {
  // Real alerts go only to enabled destinations; a test may use a disabled one.
  if (item.kind === 'alert' && !item.destination.enabled) {
    return failure('final', 'destination_disabled', 'not sent: the destination was disabled before the send');
  }
  if (item.notification === null) return failure('final', 'not_configured', 'not sent: the notification no longer exists');
  const sender = CHANNEL_SENDERS[item.destination.channel];
  return sender.send({ destination: item.destination, notification: item.notification, ownerEmail: item.ownerEmail, settings: deps.settings });
}

export async function deliverAttempt(deps: DeliveryDeps, item: AttemptToSend): Promise<SendResult> {
  const { channel } = item.destination;
  const target = CHANNEL_SENDERS[channel].target(item.destination, item.ownerEmail, deps.settings);
  const started = process.hrtime.bigint();
  const outcome = await sendOnce(deps, item);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const step = nextStep(outcome, item.attempt, deps.retryScheduleMs, item.kind === 'alert');
  const errorMessage = outcome.result === 'delivered' ? null : `${outcome.reason}: ${outcome.message}`;
  const recorded = await deps.postgres.transaction((tx) =>
    completeAttempt(tx, item.attemptId, { step, target, responseStatus: outcome.responseStatus, errorMessage }),
  );

  deps.metrics.deliveryAttemptSeconds.observe({ channel }, seconds);
  deps.metrics.deliveries.inc({ channel, outcome: step.status });
  const fields = {
    attempt_id: item.attemptId,
    destination_id: item.destination.destination_id,
    workspace_id: item.workspaceId,
    channel,
    target,
    kind: item.kind,
    attempt: item.attempt,
    status: step.status,
    response_status: outcome.responseStatus,
    duration_ms: Math.round(seconds * 1000),
  };
  if (outcome.result === 'delivered') {
    deps.logger.info('delivery sent', fields);
  } else {
    deps.metrics.deliveryFailures.inc({ channel, reason: outcome.reason });
    const retry = step.status === 'failed' ? { retry_in_ms: step.retryInMs } : {};
    deps.logger.warn('delivery failed', { ...fields, reason: outcome.reason, error: outcome.message, ...retry });
  }
  return { outcome, step, recorded };
}
