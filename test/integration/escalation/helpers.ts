// Shared set-up of the escalation tests: a service whose own escalation worker stays idle
// (the tests run cycles on a clock they set) while its delivery worker sends for real to
// local fakes, and alerts raised "now" through POST /policies/:id/evaluate.
import type { AlertJson } from '../../../src/alerts/model.js';
import { runDueEscalations } from '../../../src/escalation/chain.js';
import type { EscalationPosition } from '../../../src/notifications/model.js';
import type { TestService } from '../../helpers/service.js';

export const MINUTE = 60_000;

export const ESCALATION_TEST_ENV = {
  ALLOW_PRIVATE_TARGETS: '1',
  DELIVERY_POLL_INTERVAL_MS: '50',
  EVAL_INTERVAL_MS: '86400000',
  // The tests run escalation cycles themselves, on a test clock.
  ESCALATION_POLL_INTERVAL_MS: '60000',
};

export async function createWebhook(svc: TestService, token: string, url: string, scope: 'all' | 'none' = 'none'): Promise<string> {
  // scope "policies" with a policy no alert comes from: the destination gets only what names it (escalation steps).
  const body = scope === 'all' ? { channel: 'webhook', url } : { channel: 'webhook', url, scope: 'policies', policy_ids: [await unusedPolicy(svc, token)] };
  const res = await svc.request('POST', '/v1.0/destinations', { token, body });
  if (res.status !== 201) throw new Error(`destination: ${res.status} ${res.text}`);
  return res.body.destination_id;
}

let n = 0;

async function unusedPolicy(svc: TestService, token: string): Promise<string> {
  const eventId = await createEvent(svc, token);
  const res = await svc.request('POST', '/v1.0/policies', {
    token,
    body: { event_id: eventId, title: 'unused', severity: 'info', period: 'day', aggregate: 'count', condition: 'gt', threshold: 1e9, enabled: false },
  });
  return res.body.policy_id;
}

export async function createEvent(svc: TestService, token: string): Promise<string> {
  n += 1;
  const res = await svc.request('POST', '/v1.0/events', { token, body: { event: `escalation.e${n}_${Date.now()}`, agent: 'esc' } });
  if (res.status !== 201) throw new Error(`event: ${res.status} ${res.text}`);
  return res.body.event_id;
}

export async function createEscalationPolicy(svc: TestService, token: string, steps: [number, string[]][], repeat = 0): Promise<string> {
  const res = await svc.request('POST', '/v1.0/escalation-policies', {
    token,
    body: { name: `chain ${++n}`, steps: steps.map(([after_minutes, destination_ids]) => ({ after_minutes, destination_ids })), repeat },
  });
  if (res.status !== 201) throw new Error(`escalation policy: ${res.status} ${res.text}`);
  return res.body.escalation_policy_id;
}

/** A policy that breaches whenever evaluated (an event with no logs, count lt 1), naming the escalation policy. */
export async function escalatingPolicy(svc: TestService, token: string, escalationPolicyId: string | null): Promise<string> {
  const eventId = await createEvent(svc, token);
  const res = await svc.request('POST', '/v1.0/policies', {
    token,
    body: {
      event_id: eventId,
      title: 'Nothing arrives',
      severity: 'critical',
      period: 'minute',
      aggregate: 'count',
      condition: 'lt',
      threshold: 1,
      escalation_policy_id: escalationPolicyId,
    },
  });
  if (res.status !== 201) throw new Error(`policy: ${res.status} ${res.text}`);
  return res.body.policy_id;
}

/** Raises the policy's alert now (its last closed minute had no logs). */
export async function raise(svc: TestService, token: string, policyId: string): Promise<AlertJson> {
  const res = await svc.request('POST', `/v1.0/policies/${policyId}/evaluate`, { token, body: {} });
  if (res.status !== 200 || res.body.alert === null) throw new Error(`evaluate: ${res.status} ${res.text}`);
  return res.body.alert;
}

/** One escalation cycle at `msAfter` after the alert triggered. */
export function cycleAt(svc: TestService, alert: AlertJson, msAfter: number) {
  return runDueEscalations(svc.stores.postgres, { minuteMs: MINUTE }, new Date(Date.parse(alert.triggered_at!) + msAfter));
}

export interface EscalatedRow {
  alert: AlertJson & { escalation: EscalationPosition };
  destination_ids: string[];
  created_at: Date;
}

/** The alert.escalated outbox rows of an alert, in order. */
export function escalationsOf(svc: TestService, alertId: string): Promise<EscalatedRow[]> {
  return svc.stores.postgres.query<EscalatedRow>(
    `SELECT alert, destination_ids, created_at FROM alert_notifications WHERE alert_id = $1 AND type = 'alert.escalated' ORDER BY created_at, notification_id`,
    [alertId],
  );
}
