// Escalation policies as the API shows them.
import type { EscalationPolicy } from '../../escalation/model.js';

/** An escalation policy as the API shows it, with the policies that name it (`users`: escalation policy id → policy ids). */
export function escalationPolicyJson(p: EscalationPolicy, users: ReadonlyMap<string, string[]>) {
  return {
    escalation_policy_id: p.escalation_policy_id,
    key: p.key,
    name: p.name,
    steps: p.steps.map((s) => ({
      after_minutes: s.after_minutes,
      destination_ids: [...s.destination_ids],
      schedule_ids: [...s.schedule_ids],
      person_ids: [...s.person_ids],
    })),
    repeat: p.repeat,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
    policy_ids: users.get(p.escalation_policy_id) ?? [],
  };
}
