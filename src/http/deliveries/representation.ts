// A delivery attempt as the API shows it.
import type { AttemptInHistory } from '../../delivery/attempts.js';
import type { EscalationPosition } from '../../notifications/model.js';

/** The step; with on_call only when the step named schedules or people. */
function escalationJson(e: EscalationPosition) {
  const position = { step: e.step, of: e.of, round: e.round };
  if (e.on_call === undefined) return position;
  return { ...position, on_call: e.on_call.map((p) => ({ schedule_id: p.schedule_id, person_id: p.person_id })) };
}

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
    escalation: a.escalation === null ? null : escalationJson(a.escalation),
    attempt: a.attempt,
    next_attempt_at: a.next_attempt_at === null ? null : a.next_attempt_at.toISOString(),
    created_at: a.created_at.toISOString(),
    updated_at: a.updated_at.toISOString(),
  };
}
