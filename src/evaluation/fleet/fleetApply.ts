// Writes a fleet policy's judged groups (docs/api.md, Fleet policies): each group through the
// alert state machine of a policy on one definition (alertChanges.ts), from its kept state,
// with at most one open alert per (policy, group). A policy none of whose groups writes an
// alert or moves its kept state (most policies, most cycles) has only its progress written,
// without a lock, if its row is still the version read; the others, a chunk a transaction:
// the policy rows locked and checked as read, the groups' states and open alerts read under
// that lock, alerts and group states written, progress moved. A group silent for 24 hours is
// forgotten, its open alert resolved.
import { byGroup, changeOpenAlerts, openAlertKey, type AlertNotification } from '../../alerts/operations.js';
import { OPEN_STATUSES, type Alert } from '../../alerts/model.js';

import { TRANSITIONS } from '../../alerts/transitions.js';
import type { PostgresStore } from '../../stores/postgres.js';
import { alertChangesFor, FRESH_RUN, type AlertChanges, type RunState } from '../alertChanges.js';
import { retriedOnDeadlock, stillCurrent } from '../applyOutcomes.js';
import { lockProgress, writeProgress, type ProgressWrite } from '../progress.js';
import type { FleetTarget } from './fleetTargets.js';
import { groupSubject, isForgotten, isFresh, silenceMatters, type GroupOutcome } from './groupJudging.js';
import { deleteGroupStates, readGroupStates, upsertGroupStates, type GroupWrite } from './groupStore.js';

export interface FleetOutcome {
  readonly target: FleetTarget;
  readonly groups: readonly GroupOutcome[];
  /** The new evaluated_until (ms); null = a manual evaluation, which moves neither progress nor runs. */
  readonly evaluatedUntil: number | null;
  /** Keys of the groups that, as read, write nothing (quietGroups): under lock they are passed over while still as read. */
  readonly quiet?: ReadonlySet<string>;
}

export interface FleetApplyResult {
  readonly raised: number;
  readonly resolved: number;
  /** Per policy applied (not changed or disabled meanwhile): per group key, the alert its last step created or changed. */
  readonly latest: ReadonlyMap<string, ReadonlyMap<string, Alert | null>>;
}

type RowAction = 'keep' | 'upsert' | 'delete';

interface GroupStep {
  readonly changes: Pick<AlertChanges, 'inserts' | 'updates' | 'notifications' | 'latest'>;
  readonly state: RunState;
  readonly row: RowAction;
}

const sameState = (a: RunState, b: RunState) =>
  a.run === b.run && a.runStart === b.runStart && a.runPeak === b.runPeak && a.silentSince === b.silentSince && a.alertedUntil === b.alertedUntil;

const isOpen = (a: Alert) => OPEN_STATUSES.includes(a.status);

/** The open alert after the changes, resolved because its group is forgotten. */
function forgetOpen(changes: GroupStep['changes'], open: Alert | null, now: Date): GroupStep['changes'] {
  const last = changes.latest ?? open;
  if (last === null || !isOpen(last)) return changes;
  const resolve = TRANSITIONS.resolve;
  const resolved: Alert = { ...last, status: resolve.to, [resolve.stamp]: now, updated_at: now };
  const raisedNow = changes.inserts.some((a) => a.alert_id === resolved.alert_id);
  return {
    inserts: changes.inserts.map((a) => (a.alert_id === resolved.alert_id ? resolved : a)),
    updates: raisedNow ? changes.updates : [...changes.updates.filter((a) => a.alert_id !== resolved.alert_id), resolved],
    notifications: [...changes.notifications, ...(resolve.notifies ? [{ type: resolve.notifies, alert: resolved }] : [])],
    latest: resolved,
  };
}

/** One group's step: its alert changes, the state to keep, and what that does to its row. */
function groupStep(o: FleetOutcome, g: GroupOutcome, kept: RunState | undefined, open: Alert | null, now: Date): GroupStep {
  const held = kept ?? FRESH_RUN;
  // After skipped buckets a run starts afresh, but a silent group keeps the clock that forgets it.
  const start = g.run ? { ...g.run, silentSince: g.run.silentSince ?? held.silentSince, alertedUntil: held.alertedUntil } : held;
  const judged = alertChangesFor(groupSubject(o.target, g.labels, g.eventId), start, open, g.buckets, now);
  let changes: GroupStep['changes'] = judged;
  // A manual evaluation keeps the worker's runs: it moves only how far alerts have covered.
  const state = o.evaluatedUntil === null ? { ...held, alertedUntil: judged.state.alertedUntil } : judged.state;
  const silence = silenceMatters(o.target) || open !== null || o.target.openGroups.has(g.key);
  const forgotten = o.evaluatedUntil !== null && silence && isForgotten(state, o.evaluatedUntil);
  if (forgotten) changes = forgetOpen(changes, open, now);
  const gone = forgotten || isFresh(state, o.evaluatedUntil ?? o.target.evaluated_until?.getTime() ?? null, silence);
  const row: RowAction = gone ? (kept ? 'delete' : 'keep') : kept && sameState(kept, state) ? 'keep' : 'upsert';
  return { changes, state, row };
}

const writesNothing = (s: GroupStep) =>
  s.row === 'keep' && s.changes.inserts.length === 0 && s.changes.updates.length === 0 && s.changes.notifications.length === 0;
const hasVerdict = (g: GroupOutcome) => g.buckets.some((b) => b.verdict !== 'none' || b.openVerdict !== 'none');

/**
 * The groups that, as read, write nothing: no open alert (or no verdict to change it), and no
 * raise or move of the kept state. Most groups, most cycles: a cycle's work is the others'.
 */
export function quietGroups(o: FleetOutcome, now: Date): Set<string> {
  const quiet = new Set<string>();
  if (o.evaluatedUntil === null) return quiet;
  for (const g of o.groups) {
    if (o.target.openGroups.has(g.key) && hasVerdict(g)) continue;
    if (writesNothing(groupStep(o, g, o.target.groups.get(g.key)?.state, null, now))) quiet.add(g.key);
  }
  return quiet;
}

/** Whether the policy's groups, as read, write nothing but its progress. */
export const settles = (o: FleetOutcome): boolean => o.quiet !== undefined && o.quiet.size === o.groups.length;

/** A group quiet as read, and still as read under lock: its step would write nothing. */
const stillQuiet = (o: FleetOutcome, key: string, held: RunState | undefined, open: Alert | undefined) =>
  o.quiet?.has(key) === true && open === undefined && sameState(held ?? FRESH_RUN, o.target.groups.get(key)?.state ?? FRESH_RUN);

/**
 * A group a manual evaluation leaves as it is, without stepping through its buckets: no kept
 * state, no open alert, no breach. Without an open alert a bucket that does not breach steps
 * to 'nothing' (alertChanges.ts, nextStep), and a manual evaluation keeps no run: the state is
 * the fresh one, which has no row (most groups of a fleet's on-demand evaluation).
 */
const manualNoop = (o: FleetOutcome, g: GroupOutcome, held: RunState | undefined, open: Alert | undefined) =>
  o.evaluatedUntil === null && held === undefined && open === undefined && !g.buckets.some((b) => b.verdict === 'breach');

const progressWrite = (o: FleetOutcome, rowVersion?: string): ProgressWrite => ({
  policyId: o.target.policy_id,
  evaluatedUntil: o.evaluatedUntil,
  // A fleet policy's own run columns stay fresh: its runs are its groups'.
  state: FRESH_RUN,
  heldState: FRESH_RUN,
  heldUntil: o.target.evaluated_until?.getTime() ?? null,
  ...(rowVersion === undefined ? {} : { rowVersion }),
});

/** The progress of settled policies, each row only if still the version read. */
export async function writeSettledFleetProgress(db: PostgresStore, outcomes: readonly FleetOutcome[]): Promise<void> {
  await writeProgress(
    db,
    outcomes.map((o) => progressWrite(o, o.target.rowVersion)),
  );
}

async function applyChunk(db: PostgresStore, outcomes: readonly FleetOutcome[], now: Date): Promise<FleetApplyResult> {
  return db.transaction(async (tx) => {
    const progress = await lockProgress(
      tx,
      outcomes.map((o) => o.target.policy_id),
    );
    const current = outcomes.filter((o) => stillCurrent(o, progress.get(o.target.policy_id)));
    const ids = current.map((o) => o.target.policy_id);
    const kept = await readGroupStates(tx, ids);
    const latest = new Map<string, Map<string, Alert | null>>();
    const upserts: GroupWrite[] = [];
    const deletes: { policyId: string; key: string }[] = [];
    let raised = 0;
    let resolved = 0;
    await changeOpenAlerts(
      tx,
      ids,
      (open) => {
        const inserts: Alert[] = [];
        const updates: Alert[] = [];
        const notifications: AlertNotification[] = [];
        for (const o of current) {
          const policyId = o.target.policy_id;
          const byKey = new Map<string, Alert | null>();
          latest.set(policyId, byKey);
          for (const g of o.groups) {
            const held = kept.get(policyId)?.get(g.key);
            const openAlert = open.get(openAlertKey(policyId, g.key));
            if (stillQuiet(o, g.key, held, openAlert)) continue;
            if (manualNoop(o, g, held, openAlert)) {
              byKey.set(g.key, null);
              continue;
            }
            const step = groupStep(o, g, held, openAlert ?? null, now);
            byKey.set(g.key, step.changes.latest);
            inserts.push(...step.changes.inserts);
            updates.push(...step.changes.updates);
            notifications.push(...step.changes.notifications);
            if (step.row === 'upsert') upserts.push({ policyId, key: g.key, labels: g.labels, eventId: g.eventId, state: step.state });
            if (step.row === 'delete') deletes.push({ policyId, key: g.key });
          }
        }
        raised += notifications.filter((n) => n.type === 'alert.triggered').length;
        resolved += notifications.filter((n) => n.type === 'alert.resolved').length;
        return { inserts, updates, notifications };
      },
      now,
      byGroup,
    );
    await deleteGroupStates(tx, deletes);
    await upsertGroupStates(tx, upserts);
    await writeProgress(
      tx,
      current.filter((o) => o.evaluatedUntil !== null).map((o) => progressWrite(o)),
    );
    return { raised, resolved, latest };
  });
}

/** Groups a transaction: bounds the alerts one transaction locks and writes. */
const GROUPS_PER_CHUNK = 5_000;

/** Applies outcomes under lock, a chunk of policies a transaction. */
export async function applyFleetOutcomes(db: PostgresStore, outcomes: readonly FleetOutcome[], now: Date): Promise<FleetApplyResult> {
  const total = { raised: 0, resolved: 0, latest: new Map<string, ReadonlyMap<string, Alert | null>>() };
  let chunk: FleetOutcome[] = [];
  let groups = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    const batch = chunk;
    const r = await retriedOnDeadlock(() => applyChunk(db, batch, now));
    total.raised += r.raised;
    total.resolved += r.resolved;
    for (const [id, byKey] of r.latest) total.latest.set(id, byKey);
    chunk = [];
    groups = 0;
  };
  for (const o of outcomes) {
    if (groups + o.groups.length > GROUPS_PER_CHUNK) await flush();
    chunk.push(o);
    groups += o.groups.length;
  }
  await flush();
  return total;
}
