// Escalation chains (docs/api.md, Escalation): where escalation meets alerts and delivery.
// Escalation owns its schedule (alert_escalations, one row per alert: the next step and when
// it is due). It reads alerts and policies to start chains, locks an alert through alerts'
// store before writing a step, and writes the step as an alert.escalated notification
// into the outbox (src/notifications/), naming the step's destinations; delivery only ever sees
// notifications (silences, attempts, retries, signing as for any other). Alerts and
// delivery import nothing from here.
//
// Exactly once: a step's notification and the chain's advance are written in one
// transaction, with the chain row locked (SKIP LOCKED: several workers take different
// chains), so a crash before the commit writes neither and a later cycle writes both.
// Stopped by acknowledge/resolve/archive: the alert row is locked in that same transaction
// and its status checked, so a step and a transition are serialized by the row lock: a
// transition that committed first ends the chain, and a step that committed first was
// written before the transition (never after it).
import { lockAlertsSkippingLocked } from '../alerts/store.js';
import { notificationOf } from '../alerts/notifications.js';
import { insertNotifications, type NewNotification } from '../notifications/outbox.js';
import type { PostgresStore } from '../stores/postgres.js';
import { nextPosition } from './model.js';
import { resolveStepTargets } from './targets.js';
import { advanceChains, lockDueChains, startChains, type ChainAdvance, type DueChain } from './store.js';

export interface EscalationSettings {
  /** How long an escalation "minute" is: 60,000 ms, shorter in tests (ESCALATION_MINUTE_MS). */
  readonly minuteMs: number;
}

export interface EscalationCycle {
  readonly started: number;
  readonly sent: number;
  readonly ended: number;
  /** For each step written: how late it was against its schedule, in ms. */
  readonly lateMs: readonly number[];
}

/** Chains taken per transaction: one transaction stays short (the embedded Postgres has one connection). */
const CHAINS_PER_CYCLE = 200;

/** What a due chain does now: send its step (and move on), or end. */
function decide(chain: DueChain, status: string | undefined, now: Date, settings: EscalationSettings): { send: boolean; advance: ChainAdvance } {
  const end = { send: false, advance: { alertId: chain.alert_id, next: null } };
  // The alert left triggered, its policy no longer names this escalation policy, or it was deleted: the chain is over.
  if (status !== 'triggered' || chain.steps === null || chain.repeat === null || chain.named_now !== chain.escalation_policy_id) return end;
  const steps = chain.steps;
  // Steps removed by an edit since: carry on with the next round, if any.
  const sends = chain.step <= steps.length;
  const next = sends ? nextPosition(chain, steps.length, chain.repeat) : nextPosition({ step: steps.length, round: chain.round }, steps.length, chain.repeat);
  if (next === null) return { send: sends, advance: { alertId: chain.alert_id, next: null } };
  // Each step counts from the one before it was sent (or due, when it went out on time).
  const from = Math.max(chain.due_at.getTime(), now.getTime());
  const dueAt = new Date(from + steps[next.step - 1]!.after_minutes * settings.minuteMs);
  return { send: sends, advance: { alertId: chain.alert_id, next: { ...next, dueAt } } };
}

/**
 * One cycle: starts the chains of newly triggered alerts, then writes every step due at
 * `now` (up to a batch), each in the transaction that advances its chain.
 */
export async function runDueEscalations(db: PostgresStore, settings: EscalationSettings, now: Date): Promise<EscalationCycle> {
  const started = await db.transaction((tx) => startChains(tx, settings.minuteMs));
  return db.transaction(async (tx) => {
    const due = await lockDueChains(tx, now, CHAINS_PER_CYCLE);
    if (due.length === 0) return { started, sent: 0, ended: 0, lateMs: [] };
    const alerts = new Map(
      (
        await lockAlertsSkippingLocked(
          tx,
          due.map((c) => c.alert_id),
        )
      ).map((a) => [a.alert_id, a]),
    );
    const notifications: NewNotification[] = [];
    const advances: ChainAdvance[] = [];
    const lateMs: number[] = [];
    for (const chain of due) {
      const alert = alerts.get(chain.alert_id);
      // Another transaction holds the alert (a transition under way): decide next cycle, once it has committed.
      if (alert === undefined && chain.named_now !== null) continue;
      const { send, advance } = decide(chain, alert?.status, now, settings);
      if (send && alert) {
        const step = chain.steps![chain.step - 1]!;
        // Resolved now, in this transaction: the person on call at the moment the step fires.
        const targets = await resolveStepTargets(tx, chain.workspace_id, step, now);
        const position = { step: chain.step, of: chain.steps!.length, round: chain.round };
        notifications.push(
          notificationOf('alert.escalated', alert, {
            destinationIds: targets.destinationIds,
            escalation: targets.onCall === undefined ? position : { ...position, on_call: targets.onCall },
          }),
        );
        lateMs.push(now.getTime() - chain.due_at.getTime());
      }
      advances.push(advance);
    }
    await insertNotifications(tx, notifications, now);
    await advanceChains(tx, advances, now);
    return { started, sent: notifications.length, ended: advances.filter((a) => a.next === null).length, lateMs };
  });
}
