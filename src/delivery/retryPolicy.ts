// When a failed send is tried again: the schedule with jitter, at most so many tries, a
// provider's Retry-After as a lower bound. Whether a failure is retryable at all is decided
// from the provider's answer in src/channels/outcome.ts.
import { MAX_RETRY_AFTER_MS, type Outcome } from '../channels/outcome.js';

/**
 * Milliseconds until the retry after try number `attempt` (1-based), or null when no try
 * is left. The schedule gives the base delay of each retry; jitter spreads retries of a
 * burst over ±20 % of it, and a provider's Retry-After is a lower bound.
 */
export function retryDelayMs(attempt: number, scheduleMs: readonly number[], retryAfterMs: number | null, random = Math.random): number | null {
  const base = scheduleMs[attempt - 1];
  if (base === undefined) return null;
  const jittered = Math.round(base * (0.8 + 0.4 * random()));
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
}

/** Tries a delivery gets at most: the first one and one per step of the schedule. */
export const maxTries = (scheduleMs: readonly number[]) => scheduleMs.length + 1;

export type NextStep = { readonly status: 'delivered' } | { readonly status: 'failed'; readonly retryInMs: number } | { readonly status: 'exhausted' };

/**
 * What follows a try: delivered, failed with a retry due in retryInMs, or exhausted (no
 * retry will follow: the error is final, the tries are used up, or the send was a test,
 * which is never retried).
 */
export function nextStep(outcome: Outcome, attempt: number, scheduleMs: readonly number[], retryable: boolean): NextStep {
  if (outcome.result === 'delivered') return { status: 'delivered' };
  const retryInMs = outcome.result === 'retry' && retryable ? retryDelayMs(attempt, scheduleMs, outcome.retryAfterMs) : null;
  return retryInMs === null ? { status: 'exhausted' } : { status: 'failed', retryInMs };
}
