// The alert state machine (docs/api.md, Alerts), as tables: what each lifecycle action may do, and
// what an evaluated bucket does to a policy's alert. Code that changes an alert's status
// asks these tables; nothing else decides.
import type { AlertStamp, AlertStatus } from './model.js';
import type { NotificationType } from '../notifications/model.js';

export type AlertAction = 'acknowledge' | 'resolve' | 'archive';
export const ALERT_ACTIONS: readonly AlertAction[] = ['acknowledge', 'resolve', 'archive'];

export interface Transition {
  readonly from: readonly AlertStatus[];
  readonly to: AlertStatus;
  /** The timestamp the action sets. */
  readonly stamp: AlertStamp;
  /** The notification written to the outbox with the transition, if any. */
  readonly notifies: NotificationType | null;
}

/**
 * Any other move is refused (409). `archived` is final. A resolve notifies whether the
 * worker or a person resolved the alert: whoever was told it triggered learns it is over.
 */
export const TRANSITIONS: Readonly<Record<AlertAction, Transition>> = {
  acknowledge: { from: ['triggered'], to: 'acknowledged', stamp: 'acknowledged_at', notifies: null },
  resolve: { from: ['triggered', 'acknowledged'], to: 'resolved', stamp: 'resolved_at', notifies: 'alert.resolved' },
  archive: { from: ['triggered', 'acknowledged', 'resolved'], to: 'archived', stamp: 'archived_at', notifies: null },
};

/**
 * Whether `action` finds the alert already where it leads (acknowledge an acknowledged alert):
 * a repeat, answered with the alert unchanged, notifying nothing (clients retry requests whose
 * answer was lost).
 */
export function isRepeated(action: AlertAction, status: AlertStatus): boolean {
  return TRANSITIONS[action].to === status;
}

/** The transition `action` makes from `status`, or null when it is not allowed. */
export function transitionFor(action: AlertAction, status: AlertStatus): Transition | null {
  const t = TRANSITIONS[action];
  return t.from.includes(status) ? t : null;
}

/** A bucket's verdict: breached, not breached, or no verdict (no data, or an open bucket that may still change). */
export type Verdict = 'breach' | 'clear' | 'none';

/**
 * raise: create a `triggered` alert and notify alert.triggered.
 * update: copy the bucket's value, count, min and max onto the open alert; no notification.
 * resolve: the `resolve` transition of the open alert (auto-resolve).
 */
export type EvaluationStep = 'raise' | 'update' | 'resolve' | 'nothing';

/** What a verdict does, given whether the policy has an open (triggered or acknowledged) alert. */
export const EVALUATION_STEPS: Readonly<Record<Verdict, { readonly withoutOpenAlert: EvaluationStep; readonly withOpenAlert: EvaluationStep }>> = {
  breach: { withoutOpenAlert: 'raise', withOpenAlert: 'update' },
  clear: { withoutOpenAlert: 'nothing', withOpenAlert: 'resolve' },
  none: { withoutOpenAlert: 'nothing', withOpenAlert: 'nothing' },
};

export function evaluationStep(verdict: Verdict, hasOpenAlert: boolean): EvaluationStep {
  const row = EVALUATION_STEPS[verdict];
  return hasOpenAlert ? row.withOpenAlert : row.withoutOpenAlert;
}
