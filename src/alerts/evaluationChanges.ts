// What a run of evaluated buckets does to one policy's alerts, decided by the state machine
// of transitions.ts. Pure: the caller reads the open alert and writes the result in one
// transaction (applyEvaluatedBuckets in operations.ts).
import { newId } from '../ids.js';
import type { Alert } from './model.js';
import type { NewNotification } from './outbox.js';
import { evaluationStep, TRANSITIONS, type Verdict } from './transitions.js';

/** What an alert copies of the policy and the event it was raised under. */
export type AlertSubject = Pick<
  Alert,
  'workspace_id' | 'policy_id' | 'event_id' | 'agent' | 'event' | 'title' | 'channel' | 'period' | 'aggregate' | 'condition' | 'threshold' | 'severity'
>;

/** One evaluated bucket, as the alert state machine sees it. */
export interface JudgedBucket {
  /** ms since the epoch, [start, end). */
  readonly start: number;
  readonly end: number;
  /** The number compared with the threshold; null = no data. */
  readonly value: number | null;
  readonly count: number;
  readonly min: number | null;
  readonly max: number | null;
  readonly verdict: Verdict;
  /** Judged while still open (an early breach). */
  readonly early: boolean;
}

export interface AlertChanges {
  /** New alerts, in their final state. */
  readonly inserts: Alert[];
  /** Existing alerts that changed, in their final state. */
  readonly updates: Alert[];
  readonly notifications: NewNotification[];
  /** The alert the last step created or changed; null when none changed. */
  readonly latest: Alert | null;
}

function withResult(alert: Alert, b: JudgedBucket, now: Date): Alert {
  return {
    ...alert,
    value: b.value,
    count: b.count,
    min: b.min,
    max: b.max,
    bucket_start: new Date(b.start),
    bucket_end: new Date(b.end),
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

function raisedAlert(s: AlertSubject, b: JudgedBucket, now: Date): Alert {
  const blank: Alert = {
    alert_id: newId(),
    ...s,
    value: null,
    count: 0,
    min: null,
    max: null,
    bucket_start: now,
    bucket_end: now,
    status: 'triggered',
    triggered_at: now,
    acknowledged_at: null,
    resolved_at: null,
    archived_at: null,
    alerted_at: null,
    updated_at: now,
  };
  return withResult(blank, b, now);
}

/** Applies the buckets in order to `open`, the policy's open alert (or null). */
export function alertChangesFor(subject: AlertSubject, open: Alert | null, buckets: readonly JudgedBucket[], now: Date): AlertChanges {
  const changed = new Map<string, { alert: Alert; existing: boolean }>();
  const notifications: NewNotification[] = [];
  let current = open;
  let latest: Alert | null = null;
  const record = (alert: Alert, existing: boolean) => {
    changed.set(alert.alert_id, { alert, existing });
    latest = alert;
  };
  for (const b of buckets) {
    switch (evaluationStep(b.verdict, current !== null)) {
      case 'raise':
        current = raisedAlert(subject, b, now);
        record(current, false);
        notifications.push({ type: 'alert.triggered', alert: current });
        break;
      case 'update':
        // An open bucket re-checked every cycle often brings nothing new: no write then.
        if (sameResult(current!, b)) latest = current;
        else {
          current = withResult(current!, b, now);
          record(current, current.alert_id === open?.alert_id);
        }
        break;
      case 'resolve': {
        const resolve = TRANSITIONS.resolve;
        const resolved: Alert = { ...current!, status: resolve.to, [resolve.stamp]: now, updated_at: now };
        record(resolved, resolved.alert_id === open?.alert_id);
        if (resolve.notifies) notifications.push({ type: resolve.notifies, alert: resolved });
        current = null;
        break;
      }
      case 'nothing':
        break;
    }
  }
  const all = [...changed.values()];
  return {
    inserts: all.filter((c) => !c.existing).map((c) => c.alert),
    updates: all.filter((c) => c.existing).map((c) => c.alert),
    notifications,
    latest,
  };
}
