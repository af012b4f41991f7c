// Sending attempts and recording their outcomes, shared by the worker and the test
// operation. A send goes through its channel and is classified; retryPolicy.nextStep says
// what follows. Outcomes are recorded in one short transaction per batch (the worker
// records every send that finished meanwhile together), then counted and logged. The
// attempt row already exists (status pending) before the send.
import type { DestinationConfig } from '../destinations/model.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { PostgresStore } from '../stores/postgres.js';
import { recordAttemptResults, type AttemptKind } from './attempts.js';
import { withLinks } from '../channels/links.js';
import { channelModule } from '../channels/registry.js';
import { failure, type Outcome } from '../channels/outcome.js';
import { nextStep, type NextStep } from './retryPolicy.js';
import type { Notification } from '../notifications/model.js';
import type { DestinationTemplates } from '../channels/templates.js';
import { renderingFor } from './rendering.js';
import type { DeliverySettings } from './model.js';

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
  readonly destination: DestinationConfig & Partial<DestinationTemplates> & { readonly destination_id: string; readonly enabled: boolean };
  readonly notification: Notification | null;
  readonly ownerEmail: string | null;
}

/** A send that happened and is not recorded yet. */
export interface SentAttempt {
  readonly item: AttemptToSend;
  readonly target: string;
  readonly outcome: Outcome;
  readonly step: NextStep;
  readonly seconds: number;
}

async function sendThroughChannel(deps: DeliveryDeps, item: AttemptToSend): Promise<Outcome> {
  // Real notifications (alerts, handoffs) go only to enabled destinations; a test may use a disabled one.
  if (item.kind !== 'test' && !item.destination.enabled) {
    return failure('final', 'destination_disabled', 'not sent: the destination was disabled before the send');
  }
  if (item.notification === null) return failure('final', 'not_configured', 'not sent: the notification no longer exists');
  return channelModule(item.destination.channel).send({
    destination: item.destination,
    notification: withLinks(item.notification, deps.settings.links),
    ownerEmail: item.ownerEmail,
    settings: deps.settings,
    rendering: await renderingFor(deps.postgres, deps.settings, item.workspaceId, item.destination, item.notification),
  });
}

export async function sendAttempt(deps: DeliveryDeps, item: AttemptToSend): Promise<SentAttempt> {
  const target = channelModule(item.destination.channel).target(item.destination, item.ownerEmail, deps.settings);
  const started = process.hrtime.bigint();
  let outcome: Outcome;
  try {
    outcome = await sendThroughChannel(deps, item);
  } catch (err) {
    // A defect, not the provider's answer: recorded as final, so the attempt does not come back forever.
    deps.logger.error('delivery send failed unexpectedly', { attempt_id: item.attemptId, channel: item.destination.channel, err });
    outcome = failure('final', 'internal_error', 'the send failed inside alertmon; see the service log');
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { item, target, outcome, seconds, step: nextStep(outcome, item.attempt, deps.retryScheduleMs, item.kind !== 'test') };
}

/** Records a batch of sends in one transaction, then counts and logs each one recorded. */
export async function recordSentAttempts(deps: DeliveryDeps, sent: readonly SentAttempt[]): Promise<void> {
  const recorded = await deps.postgres.transaction((tx) =>
    recordAttemptResults(
      tx,
      sent.map(({ item, target, outcome, step }) => ({
        attemptId: item.attemptId,
        step,
        target,
        responseStatus: outcome.responseStatus,
        errorMessage: outcome.result === 'delivered' ? null : `${outcome.reason}: ${outcome.message}`,
      })),
    ),
  );
  for (const one of sent) if (recorded.has(one.item.attemptId)) report(deps, one);
}

function report(deps: DeliveryDeps, { item, target, outcome, step, seconds }: SentAttempt): void {
  const { channel } = item.destination;
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
    return;
  }
  deps.metrics.deliveryFailures.inc({ channel, reason: outcome.reason });
  const retry = step.status === 'failed' ? { retry_in_ms: step.retryInMs } : {};
  deps.logger.warn('delivery failed', { ...fields, reason: outcome.reason, error: outcome.message, ...retry });
}

/** Sends one attempt and records it at once (the test operation). */
export async function deliverAttempt(deps: DeliveryDeps, item: AttemptToSend): Promise<SentAttempt> {
  const sent = await sendAttempt(deps, item);
  await recordSentAttempts(deps, [sent]);
  return sent;
}
