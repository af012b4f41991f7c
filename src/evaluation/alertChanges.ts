// What a run of evaluated buckets does to one policy's alerts (docs/api.md, Policies and
// evaluation): the pending run, hysteresis, the manual-resolve rule, applied through the alert
// state machine (src/alerts/transitions.ts). Pure, and the one implementation of these rules:
// the worker and the on-demand evaluation have its result written in one transaction
// (applyOutcomes.ts, through alerts' changeOpenAlerts), and the backtest runs the same steps
// over a bucket series and writes nothing.
import { newId } from '../ids.js';
import type { Alert } from '../alerts/model.js';
import type { AlertWrites } from '../alerts/operations.js';
import { evaluationStep, TRANSITIONS, type EvaluationStep, type Verdict } from '../alerts/transitions.js';
import type { PolicyRule } from '../policies/model.js';

/** What an alert copies of the policy, the event and the group it was raised under, with the rule whose pending run it needs. */
export type AlertSubject = Pick<Alert, 'workspace_id' | 'policy_id' | 'event_id' | 'agent' | 'event' | 'labels' | 'title' | 'channel' | 'severity'> &
  PolicyRule;

/** One evaluated bucket, as the alert state machine sees it. */
export interface JudgedBucket {
  /** ms since the epoch, [start, end). */
  readonly start: number;
  readonly end: number;
  /** The number compared with the threshold (the aggregate, or its percentage change); null = none. */
  readonly value: number | null;
  readonly aggregateValue: number | null;
  readonly comparisonValue: number | null;
  /** Start of the comparison bucket (ms); null without compare_to. */
  readonly comparisonStart: number | null;
  readonly count: number;
  readonly min: number | null;
  readonly max: number | null;
  /** Against the threshold: a breach raises an alert, or counts toward a pending run. */
  readonly verdict: Verdict;
  /** With an open alert: a breach keeps it open (and updates it), clear resolves it. */
  readonly openVerdict: Verdict;
  /** Judged while still open (an early breach): it is judged again once closed. */
  readonly early: boolean;
  /**
   * Judged before the bucket before it, which is still in its grace time: it may raise an
   * alert, but leaves an open one alone (the bucket before may yet resolve it).
   */
  readonly ahead?: boolean;
}

/** A policy's evaluation state, kept in Postgres with its progress (policies.breach_run …). */
export interface RunState {
  /** Consecutive breaching buckets, ending with the last one evaluated. */
  readonly run: number;
  /** Start of the first of them (ms); null when run is 0. */
  readonly runStart: number | null;
  /** The most extreme value among them, in the direction of the condition; null when none had one. */
  readonly runPeak: number | null;
  /** Start of the consecutive empty buckets ending with the last one evaluated (ms); null when it had logs. */
  readonly silentSince: number | null;
  /** End of the last bucket that raised or updated an alert (ms): no alert is raised for a bucket before it. */
  readonly alertedUntil: number | null;
}

export const FRESH_RUN: RunState = { run: 0, runStart: null, runPeak: null, silentSince: null, alertedUntil: null };

/**
 * One bucket's step: what it does to the policy's alert, and the state after it. A raise
 * needs a whole pending run, and a bucket no alert has covered yet, so an alert resolved by
 * hand is not raised again by the bucket that raised or updated it; an open alert is updated
 * or resolved only by its own bucket or a later one, and never by a bucket judged ahead of
 * the one before it. A bucket with no verdict ends a pending run, as a bucket that does not
 * breach does.
 */
export function nextStep(subject: AlertSubject, state: RunState, hasOpenAlert: boolean, b: JudgedBucket): { state: RunState; step: EvaluationStep } {
  const breach = b.verdict === 'breach';
  const run = breach ? state.run + 1 : 0;
  const runStart = breach ? (state.run > 0 ? state.runStart : b.start) : null;
  const runPeak = breach ? peakOf(subject.condition, state.run > 0 ? state.runPeak : null, b.value) : null;
  const silentSince = b.count === 0 ? (state.silentSince ?? b.start) : null;
  let step = evaluationStep(hasOpenAlert ? b.openVerdict : b.verdict, hasOpenAlert);
  if (step === 'raise' && (run < subject.pending_buckets || (state.alertedUntil !== null && b.start < state.alertedUntil))) step = 'nothing';
  // A bucket older than the one the open alert stands on (judged once its grace time ended,
  // after a newer bucket fired early) neither moves the alert back to its numbers nor resolves it.
  if ((step === 'update' || step === 'resolve') && ((state.alertedUntil !== null && b.end < state.alertedUntil) || b.ahead === true)) step = 'nothing';
  const alertedUntil = step === 'raise' || step === 'update' ? Math.max(state.alertedUntil ?? b.end, b.end) : state.alertedUntil;
  return { state: { run, runStart, runPeak, silentSince, alertedUntil }, step };
}

/** The run at the end of these buckets, counted from none (a manual evaluation counts its own). */
export function runOver(subject: AlertSubject, buckets: readonly JudgedBucket[]): Omit<RunState, 'alertedUntil'> {
  let state = FRESH_RUN;
  for (const b of buckets) state = nextStep(subject, state, false, b).state;
  const { alertedUntil: _covered, ...run } = state;
  return run;
}

/** The more extreme of two values in the direction the condition breaches (eq: the later). */
function peakOf(condition: string, a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  if (condition === 'gt' || condition === 'gte') return Math.max(a, b);
  if (condition === 'lt' || condition === 'lte') return Math.min(a, b);
  return b;
}

function withResult(alert: Alert, b: JudgedBucket, state: RunState, now: Date): Alert {
  // The same bucket judged again (early, then closed) is not one more breaching bucket.
  const again = alert.bucket_start.getTime() === b.start;
  return {
    ...alert,
    value: b.value,
    aggregate_value: b.aggregateValue,
    comparison_value: b.comparisonValue,
    comparison_bucket_start: b.comparisonStart === null ? null : new Date(b.comparisonStart),
    count: b.count,
    min: b.min,
    max: b.max,
    bucket_start: new Date(b.start),
    bucket_end: new Date(b.end),
    breaching_buckets: again ? alert.breaching_buckets : alert.breaching_buckets + 1,
    peak_value: peakOf(alert.condition, alert.peak_value, b.value),
    silent_since: state.silentSince === null ? null : new Date(state.silentSince),
    updated_at: now,
  };
}

function sameResult(alert: Alert, b: JudgedBucket): boolean {
  return (
    alert.value === b.value &&
    alert.count === b.count &&
    alert.min === b.min &&
    alert.max === b.max &&
    alert.bucket_start.getTime() === b.start &&
    alert.bucket_end.getTime() === b.end
  );
}

function raisedAlert(s: AlertSubject, b: JudgedBucket, state: RunState, now: Date): Alert {
  const blank: Alert = {
    alert_id: newId(),
    workspace_id: s.workspace_id,
    policy_id: s.policy_id,
    event_id: s.event_id,
    agent: s.agent,
    event: s.event,
    labels: s.labels,
    title: s.title,
    channel: s.channel,
    severity: s.severity,
    period: s.period,
    aggregate: s.aggregate,
    condition: s.condition,
    threshold: s.threshold,
    recovery_threshold: s.recovery_threshold,
    compare_to: s.compare_to,
    value: null,
    aggregate_value: null,
    comparison_value: null,
    comparison_bucket_start: null,
    count: 0,
    min: null,
    max: null,
    bucket_start: new Date(b.start),
    bucket_end: new Date(b.end),
    breaching_since: new Date(state.runStart ?? b.start),
    breaching_buckets: state.run,
    peak_value: state.runPeak,
    silent_since: null,
    status: 'triggered',
    triggered_at: now,
    acknowledged_at: null,
    resolved_at: null,
    archived_at: null,
    alerted_at: null,
    notified_at: now,
    updated_at: now,
  };
  return withResult(blank, b, state, now);
}

/** Where a policy's alert stands between two buckets. */
export interface AlertCursor {
  readonly state: RunState;
  readonly open: Alert | null;
}

export interface BucketStep {
  readonly cursor: AlertCursor;
  readonly step: EvaluationStep;
  /** The alert the step raised, changed or resolved (an update that brings nothing new returns it unchanged); null for nothing. */
  readonly alert: Alert | null;
}

/** Applies one bucket to where the alert stands. */
export function applyBucket(subject: AlertSubject, cursor: AlertCursor, b: JudgedBucket, now: Date): BucketStep {
  const { state, step } = nextStep(subject, cursor.state, cursor.open !== null, b);
  switch (step) {
    case 'raise': {
      const raised = raisedAlert(subject, b, state, now);
      return { cursor: { state, open: raised }, step, alert: raised };
    }
    case 'update': {
      // An open bucket re-checked every cycle often brings nothing new: no change then.
      const updated = sameResult(cursor.open!, b) ? cursor.open! : withResult(cursor.open!, b, state, now);
      return { cursor: { state, open: updated }, step, alert: updated };
    }
    case 'resolve': {
      const resolve = TRANSITIONS.resolve;
      const resolved: Alert = { ...cursor.open!, status: resolve.to, [resolve.stamp]: now, updated_at: now };
      return { cursor: { state, open: null }, step, alert: resolved };
    }
    case 'nothing':
      return { cursor: { state, open: cursor.open }, step, alert: null };
  }
}

export interface AlertChanges extends AlertWrites {
  /** The alert the last step created or changed; null when none changed. */
  readonly latest: Alert | null;
  /**
   * The state to keep: as after the last closed bucket (an early bucket is judged again once
   * closed, so it counts toward no run yet), but covering what an early bucket raised or updated.
   */
  readonly state: RunState;
}

/** Applies the buckets in order, from `state` and `open` (the policy's open alert, or null). */
export function alertChangesFor(subject: AlertSubject, state: RunState, open: Alert | null, buckets: readonly JudgedBucket[], now: Date): AlertChanges {
  const changed = new Map<string, { alert: Alert; existing: boolean }>();
  const notifications: AlertChanges['notifications'] = [];
  let cursor: AlertCursor = { state, open };
  let kept = state;
  let latest: Alert | null = null;
  for (const b of buckets) {
    const result = applyBucket(subject, cursor, b, now);
    kept = b.early ? { ...kept, alertedUntil: result.cursor.state.alertedUntil } : result.cursor.state;
    const alert = result.alert;
    if (alert !== null) {
      latest = alert;
      if (alert !== cursor.open) changed.set(alert.alert_id, { alert, existing: alert.alert_id === open?.alert_id });
      if (result.step === 'raise') notifications.push({ type: 'alert.triggered', alert });
      if (result.step === 'resolve' && TRANSITIONS.resolve.notifies) notifications.push({ type: TRANSITIONS.resolve.notifies, alert });
    }
    cursor = result.cursor;
  }
  const all = [...changed.values()];
  return {
    inserts: all.filter((c) => !c.existing).map((c) => c.alert),
    updates: all.filter((c) => c.existing).map((c) => c.alert),
    notifications,
    latest,
    state: kept,
  };
}
