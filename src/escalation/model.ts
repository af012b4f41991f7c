// What an escalation policy is (docs/api.md, Escalation): steps that page further
// destinations while an alert stays triggered, and how many times the chain repeats.

/** Bounds of the fields, for the API schema and the checks alike. */
export const ESCALATION_LIMITS = {
  steps: { min: 1, max: 10 },
  afterMinutes: { min: 1, max: 1440 },
  repeat: { min: 0, max: 10 },
  destinationsPerStep: { min: 1, max: 100 },
  name: { max: 200 },
  /** Escalation policies one workspace may keep. */
  perWorkspace: 1000,
} as const;

export interface EscalationStep {
  /** Minutes after the alert triggered (step 1) or after the step before. */
  readonly after_minutes: number;
  readonly destination_ids: readonly string[];
}

export interface EscalationPolicy {
  escalation_policy_id: string;
  workspace_id: string;
  name: string;
  steps: EscalationStep[];
  repeat: number;
  created_at: Date;
  updated_at: Date;
}

/** The fields a client sets. */
export type EscalationPolicyFields = Pick<EscalationPolicy, 'name' | 'steps' | 'repeat'>;

/** The position of a step in a chain: step n of m, in round r (1 + repeat rounds in all). */
export interface EscalationPosition {
  readonly step: number;
  readonly of: number;
  readonly round: number;
}

/**
 * The step after `at` in a chain of `steps` steps repeated `repeat` more times, or null when
 * the chain has ended: after the last step comes step 1 of the next round.
 */
export function nextPosition(at: { step: number; round: number }, steps: number, repeat: number): { step: number; round: number } | null {
  if (at.step < steps) return { step: at.step + 1, round: at.round };
  if (at.round <= repeat) return { step: 1, round: at.round + 1 };
  return null;
}
