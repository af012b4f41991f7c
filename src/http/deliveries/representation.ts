// A delivery attempt as the API shows it.
import type { AttemptInHistory } from '../../delivery/attempts.js';

/** An attempt in an alert's delivery history: timestamps ISO 8601 UTC. */
export function deliveryAttemptJson(a: AttemptInHistory) {
  return {
    attempt_id: a.attempt_id,
    alert_id: a.alert_id,
    destination_id: a.destination_id,
    notification_id: a.notification_id,
    channel: a.channel,
    target: a.target,
    status: a.status,
    response_status: a.response_status,
    error_message: a.error_message,
    kind: a.kind,
    type: a.type,
    escalation: a.escalation === null ? null : { step: a.escalation.step, of: a.escalation.of, round: a.escalation.round },
    attempt: a.attempt,
    next_attempt_at: a.next_attempt_at === null ? null : a.next_attempt_at.toISOString(),
    created_at: a.created_at.toISOString(),
    updated_at: a.updated_at.toISOString(),
  };
}
