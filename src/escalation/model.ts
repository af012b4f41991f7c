// What an escalation policy is (docs/api.md, Escalation): steps that page further
// destinations while an alert stays triggered, and how many times the chain repeats.

/** Bounds of the fields, for the API schema and the checks alike. */
export const ESCALATION_LIMITS = {
  steps: { min: 1, max: 10 },
  afterMinutes: { min: 1, max: 1440 },
  repeat: { min: 0, max: 10 },
  /** Each list of a step may be empty, but a step names at least one target in all. */
  destinationsPerStep: { min: 0, max: 100 },
  schedulesPerStep: { max: 20 },
  peoplePerStep: { max: 50 },
  name: { max: 200 },
  /** Escalation policies one workspace may keep. */
  perWorkspace: 1000,
} as const;

export interface EscalationStep {
  /** Minutes after the alert triggered (step 1) or after the step before. */
  readonly after_minutes: number;
  readonly destination_ids: readonly string[];
  /** Whoever is on call in each of these schedules when the step fires (src/oncall/). */
  readonly schedule_ids: readonly string[];
  /** These people, through their destinations. */
  readonly person_ids: readonly string[];
}

/** A step as stored before schedules and people (migration 0041 needs no rewrite): the lists it lacks are empty. */
export function stepOf(stored: Partial<EscalationStep> & { after_minutes: number }): EscalationStep {
  return {
    after_minutes: stored.after_minutes,
    destination_ids: stored.destination_ids ?? [],
    schedule_ids: stored.schedule_ids ?? [],
    person_ids: stored.person_ids ?? [],
  };
}

export interface EscalationPolicy {
  escalation_policy_id: string;
  workspace_id: string;
  /** Its key in an alerting-as-code document (docs/as-code.md): unique per workspace and kind; null: none yet. */
  key: string | null;
  name: string;
  steps: EscalationStep[];
  repeat: number;
  created_at: Date;
  updated_at: Date;
}

/** The fields a client sets. */
export type EscalationPolicyFields = Pick<EscalationPolicy, 'name' | 'steps' | 'repeat'>;

/**
 * The step after `at` in a chain of `steps` steps repeated `repeat` more times, or null when
 * the chain has ended: after the last step comes step 1 of the next round.
 */
export function nextPosition(at: { step: number; round: number }, steps: number, repeat: number): { step: number; round: number } | null {
  if (at.step < steps) return { step: at.step + 1, round: at.round };
  if (at.round <= repeat) return { step: 1, round: at.round + 1 };
  return null;
}
