// POST /v1.0/destinations/:id/test, without HTTP: a synthetic alert sent once, at once,
// recorded as an attempt of kind `test` under the synthetic alert id (docs/api.md, Destinations and deliveries). A
// disabled destination can still be tested; a test is never retried.
import { getDestination } from '../destinations/operations.js';
import { channelModule } from '../channels/registry.js';
import { ownerEmailOf } from '../destinations/store.js';
import { upstreamFailed, type ErrorDetail } from '../errors.js';
import { newId } from '../ids.js';
import { insertPendingAttempts } from './attempts.js';
import { deliverAttempt, type DeliveryDeps } from './deliver.js';
import type { NotifiedAlert } from '../notifications/model.js';

export interface TestSendResult {
  readonly alert_id: string;
  readonly destination_id: string;
  readonly status: 'sent';
}

function syntheticAlert(alertId: string, now: string): NotifiedAlert {
  return {
    alert_id: alertId,
    policy_id: null,
    event_id: null,
    agent: 'alertmon',
    event: 'destination.test',
    title: 'Test notification',
    channel: 'default',
    period: 'minute',
    aggregate: 'count',
    condition: 'gt',
    threshold: 0,
    severity: 'info',
    value: 1,
    count: 1,
    min: 1,
    max: 1,
    status: 'triggered',
    triggered_at: now,
    acknowledged_at: null,
    resolved_at: null,
    alerted_at: null,
  };
}

export async function sendTestNotification(deps: DeliveryDeps, workspaceId: string, destinationId: string): Promise<TestSendResult> {
  const { postgres, settings } = deps;
  const destination = await getDestination(postgres, workspaceId, destinationId);
  const ownerEmail = destination.channel === 'email' ? await ownerEmailOf(postgres, workspaceId) : null;
  const alertId = newId();
  const [attemptId] = await insertPendingAttempts(postgres, [
    {
      workspaceId,
      alertId,
      destinationId,
      notificationId: null,
      kind: 'test',
      type: 'test',
      channel: destination.channel,
      target: channelModule(destination.channel).target(destination, ownerEmail, settings),
      attempt: 1,
      dueInMs: null,
    },
  ]);
  const { outcome } = await deliverAttempt(deps, {
    attemptId: attemptId!,
    workspaceId,
    kind: 'test',
    attempt: 1,
    destination,
    notification: { id: alertId, type: 'test', alert: syntheticAlert(alertId, new Date().toISOString()) },
    ownerEmail,
  });
  if (outcome.result === 'delivered') return { alert_id: alertId, destination_id: destinationId, status: 'sent' };

  const details: ErrorDetail[] = [{ path: '/provider/error', message: `${outcome.reason}: ${outcome.message}` }];
  if (outcome.responseStatus !== null) details.push({ path: '/provider/status', message: String(outcome.responseStatus) });
  if (outcome.answer !== null) details.push({ path: '/provider/answer', message: outcome.answer });
  throw upstreamFailed('delivery_failed', `The ${destination.channel} destination did not accept the test notification (${outcome.message}).`, details, {
    alert_id: alertId,
    destination_id: destinationId,
  });
}
