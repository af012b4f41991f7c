// What a run of evaluated buckets does to one policy's alerts, decided by the state machine
// of src/alerts/transitions.ts. Pure: the caller reads the open alert and writes the result
// in one transaction.
import type { Notification } from '../alerts/outbox.js';
import type { Alert } from '../alerts/model.js';
import { evaluationStep, TRANSITIONS, type Verdict } from '../alerts/transitions.js';
import { newId } from '../ids.js';
import type { Bucket } from '../rollups/buckets.js';
import type { BucketStats } from '../rollups/model.js';
import type { EvaluationTarget } from './targets.js';

export interface EvaluatedBucket {
  readonly bucket: Bucket;
  readonly stats: BucketStats;
  /** The aggregate compared with the threshold; null = no data. */
  readonly value: number | null;
  readonly verdict: Verdict;
  /** Judged while still open (an early breach). */
  readonly early: boolean;
}

export interface AlertChanges {
  /** New alerts, in their final state. */
  readonly inserts: Alert[];
  /** Existing alerts that changed, in their final state. */
  readonly updates: Alert[];
  readonly notifications: Notification[];
  /** The alert the last step created or changed; null when none changed. */
  readonly latest: Alert | null;
}

function withResult(alert: Alert, b: EvaluatedBucket, now: Date): Alert {
  return {
    ...alert,
    value: b.value,
    count: b.stats.count,
    min: b.stats.min,
    max: b.stats.max,
    bucket_start: new Date(b.bucket.start),
    bucket_end: new Date(b.bucket.end),
    updated_at: now,
  };
}

function sameResult(alert: Alert, b: EvaluatedBucket): boolean {
  return (
    alert.value === b.value &&
    alert.count === b.stats.count &&
    alert.min === b.stats.min &&
    alert.max === b.stats.max &&
    alert.bucket_start.getTime() === b.bucket.start &&
    alert.bucket_end.getTime() === b.bucket.end
  );
}

function raisedAlert(t: EvaluationTarget, b: EvaluatedBucket, now: Date): Alert {
  const blank: Alert = {
    alert_id: newId(),
    workspace_id: t.workspace_id,
    policy_id: t.policy_id,
    event_id: t.event_id,
    agent: t.agent,
    event: t.event,
    title: t.title,
    channel: t.channel,
    period: t.period,
    aggregate: t.aggregate,
    condition: t.condition,
    threshold: t.threshold,
    severity: t.severity,
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
export function alertChangesFor(target: EvaluationTarget, open: Alert | null, buckets: readonly EvaluatedBucket[], now: Date): AlertChanges {
  const changed = new Map<string, { alert: Alert; existing: boolean }>();
  const notifications: Notification[] = [];
  let current = open;
  let latest: Alert | null = null;
  const record = (alert: Alert, existing: boolean) => {
    changed.set(alert.alert_id, { alert, existing });
    latest = alert;
  };
  for (const b of buckets) {
    switch (evaluationStep(b.verdict, current !== null)) {
      case 'raise':
        current = raisedAlert(target, b, now);
        record(current, false);
        notifications.push({ type: 'alert.triggered', alert: current, at: now });
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
        if (resolve.notifies) notifications.push({ type: resolve.notifies, alert: resolved, at: now });
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
