// The delivery worker: turns outbox notifications into attempts, claims due attempts and
// sends them, up to `concurrency` at a time and at most `perDestination` to one destination
// (`perWorkspace` for one workspace), so a target that hangs holds only its own share of the
// slots and the others keep flowing. Everything it knows lives in Postgres, so a restart
// picks up pending retries, and several workers share the work through SKIP LOCKED claims.
//
// The database work is per batch, never per notification: a committed outbox row wakes the
// worker (LISTEN/NOTIFY, in this process and across processes; the poll is only the
// fallback); claims take a batch ahead of the free slots (a send starts the moment a slot
// frees, without a query), and one transaction records every send that finished meanwhile.
// So its throughput does not depend on how quickly the store answers one statement (that
// dependence is what cut it 11x when the embedded Postgres began answering within the turn:
// each freed slot then cost a claim and each send a transaction of its own). stop() lets the
// sends in flight finish and record their outcome.
import { OUTBOX_SIGNAL_CHANNEL } from '../notifications/outbox.js';
import type { BackgroundTask } from '../backgroundTask.js';
import { claimDueAttempts, countPendingRetries, hasDueAttempts, type ClaimedAttempt } from './attempts.js';
import { recordSentAttempts, sendAttempt, type DeliveryDeps, type SentAttempt } from './deliver.js';
import { inhibitingAlerts } from '../alertsources/inhibition.js';
import { releaseHeldNotifications, type StillHeld } from '../silences/release.js';
import { dispatchNotifications } from './dispatch.js';
import { releaseClaims } from './interrupted.js';

export interface DeliveryWorkerOptions {
  /** Sleep between polls when there is nothing to do (and no signal came). */
  readonly pollIntervalMs: number;
  /** Sends in flight at most. */
  readonly concurrency: number;
  /** Sends in flight to one destination at most. */
  readonly perDestination: number;
  /** Sends in flight for one workspace at most. */
  readonly perWorkspace: number;
}

const DISPATCH_BATCH = 500;

/** Held notifications of received alerts that an inhibition rule of their source still suppresses. */
const stillInhibited: StillHeld = async (tx, held) => {
  const received = held.filter((h) => typeof h.alert.alert_source_id === 'string');
  const inhibiting = await inhibitingAlerts(
    tx,
    received.map((h) => ({ alertId: h.alert.alert_id, alertSourceId: h.alert.alert_source_id!, labels: h.alert.labels })),
  );
  return new Set(received.filter((h) => inhibiting.has(h.alert.alert_id)).map((h) => h.notificationId));
};
const PENDING_GAUGE_EVERY_MS = 5_000;
const STOP_GRACE_MS = 5_000;
/**
 * Claimed attempts held at most, in sends' worth: queued ones start as slots free. A
 * destination may hold PER_TARGET_AHEAD times its bound, so a hung target's queue drains
 * within PER_TARGET_AHEAD time-outs, well inside the claim's lease.
 */
const CLAIM_AHEAD = 4;
/** How long a finished send waits for others to be recorded with it, and how many are enough. */
const RECORD_WAIT_MS = 20;
const RECORD_BATCH = 64;
const PER_TARGET_AHEAD = 3;

export class DeliveryWorker implements BackgroundTask {
  readonly name = 'delivery';
  private running = false;
  private loop: Promise<void> | null = null;
  /** Claimed, waiting for a send slot (oldest first). */
  private queue: ClaimedAttempt[] = [];
  private sending = 0;
  /** Sends from their start until their outcome is recorded. */
  private readonly inFlight = new Set<Promise<void>>();
  /** Sends on the wire, per destination and per workspace (only keys with sends on the wire). */
  private readonly busyDestinations = new Map<string, number>();
  private readonly busyWorkspaces = new Map<string, number>();
  /** Claimed by this worker and not yet sent or on the wire (queued + sending), for the claim's bounds. */
  private readonly heldDestinations = new Map<string, number>();
  private readonly heldWorkspaces = new Map<string, number>();
  private wake: (() => void) | null = null;
  private stopListening: (() => Promise<void>) | null = null;
  private gaugeUpdatedAt = 0;
  /** A committed outbox row was signalled (or the outbox had more rows than one batch). */
  private outboxSignalled = true;
  private outboxCheckedAt = 0;
  /** Due attempts (retries, ones a destination's bound held back) are looked for at least once per poll interval. */
  private claimCheckedAt = 0;
  /** The last claim was full: more attempts are probably due. */
  private moreDue = true;
  /** Held notifications (silenced alert.triggered) are looked at once per poll interval. */
  private heldCheckedAt = 0;
  private unrecorded: { sent: SentAttempt; done: () => void }[] = [];
  private recording = false;
  private recordTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: DeliveryDeps,
    private readonly options: DeliveryWorkerOptions,
  ) {}

  /** How long a claim holds an attempt: well past the send's time-out, so only a dead worker loses it. */
  private get leaseMs(): number {
    const { timeoutMs, leaseGraceMs } = this.deps.settings.delivery;
    return timeoutMs * (PER_TARGET_AHEAD + 1) + leaseGraceMs;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopListening = this.deps.postgres.listen(
      OUTBOX_SIGNAL_CHANNEL,
      () => this.onOutboxSignal(),
      (err) => this.deps.logger.warn('delivery worker lost its outbox signal for a while; polling meanwhile', { err }),
    );
    this.loop = this.run();
  }

  private onOutboxSignal(): void {
    this.outboxSignalled = true;
    this.wake?.();
  }

  /**
   * Waits for the round and the sends in flight, for as long as a send may take and a little
   * more. A store that went away mid-query never answers; past the bound, the claims' leases
   * make whatever did not finish due again for the next worker, as interrupted sends.
   * Queued claims, never sent, are handed back.
   */
  async stop(): Promise<void> {
    this.running = false;
    await this.stopListening?.();
    this.stopListening = null;
    this.wake?.();
    const finished = (async () => {
      await this.loop;
      await Promise.all(this.inFlight);
    })();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'timed_out'>((resolve) => {
      timer = setTimeout(() => resolve('timed_out'), this.deps.settings.delivery.timeoutMs + STOP_GRACE_MS);
    });
    const result = await Promise.race([finished, bound]);
    clearTimeout(timer);
    if (result === 'timed_out') {
      this.deps.logger.warn('delivery worker stopped before its work finished; leased attempts will be sent again after their lease', {
        in_flight: this.inFlight.size,
      });
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      let busy = false;
      try {
        busy = await this.tick();
      } catch (err) {
        this.deps.logger.error('delivery worker round failed', { err });
      }
      if (this.running && !busy) await this.sleep();
    }
    // Claimed, never on the wire: handed back, due at once for whichever worker runs (not
    // interrupted sends). If the store is gone, their lease brings them back as interrupted.
    const unsent = this.queue.map((item) => item.attemptId);
    this.queue = [];
    try {
      await releaseClaims(this.deps.postgres, unsent);
    } catch (err) {
      this.deps.logger.warn('delivery worker could not hand back its unsent claims; they come back after their lease', { attempts: unsent.length, err });
    }
  }

  private get claimLimit(): number {
    return this.options.concurrency * CLAIM_AHEAD;
  }
  private get claimedCount(): number {
    return this.queue.length + this.sending;
  }
  /** Worth a claim: room for at least half the slots' worth. */
  private get roomToClaim(): boolean {
    return this.claimLimit - this.claimedCount >= Math.max(1, Math.floor(this.options.concurrency / 2));
  }

  /** One round: release what ended silences held, dispatch, then claim ahead of the slots. True when there was work. */
  private async tick(): Promise<boolean> {
    const now = Date.now();
    const pollDue = (at: number) => now - at >= this.options.pollIntervalMs;
    if (pollDue(this.heldCheckedAt)) {
      this.heldCheckedAt = now;
      // Released notifications are new outbox rows: their trigger signals.
      await releaseHeldNotifications(this.deps.postgres, new Date(), stillInhibited);
    }
    let dispatched = 0;
    if (this.outboxSignalled || pollDue(this.outboxCheckedAt)) {
      this.outboxSignalled = false;
      this.outboxCheckedAt = now;
      dispatched = (await dispatchNotifications(this.deps.postgres, this.deps.settings, DISPATCH_BATCH)).notifications;
      if (dispatched === DISPATCH_BATCH) this.outboxSignalled = true;
      if (dispatched > 0) this.moreDue = true;
    }
    let claimed = 0;
    if (this.roomToClaim && (this.moreDue || pollDue(this.claimCheckedAt) || dispatched > 0 || this.claimedCount === 0)) {
      this.claimCheckedAt = now;
      claimed = await this.claim();
    }
    await this.updatePendingGauge();
    return dispatched > 0 || claimed > 0 || this.outboxSignalled;
  }

  private async claim(): Promise<number> {
    if (!this.moreDue && !(await hasDueAttempts(this.deps.postgres))) return 0;
    const limit = this.claimLimit - this.claimedCount;
    const bounds = {
      perDestination: this.options.perDestination * PER_TARGET_AHEAD,
      perWorkspace: this.options.perWorkspace * PER_TARGET_AHEAD,
      busyDestinations: this.heldDestinations,
      busyWorkspaces: this.heldWorkspaces,
    };
    const claimed = await claimDueAttempts(this.deps.postgres, limit, this.leaseMs, bounds);
    this.moreDue = claimed.length === limit;
    for (const item of claimed) {
      countIn(this.heldDestinations, item.destination.destination_id, 1);
      countIn(this.heldWorkspaces, item.workspaceId, 1);
      this.queue.push(item);
    }
    this.startQueued();
    return claimed.length;
  }

  /** Starts queued sends while slots and their bounds allow, oldest first. */
  private startQueued(): void {
    if (this.queue.length === 0 || this.sending >= this.options.concurrency) return;
    const { perDestination, perWorkspace } = this.options;
    const waiting: ClaimedAttempt[] = [];
    for (const item of this.queue) {
      const fits =
        this.sending < this.options.concurrency &&
        (this.busyDestinations.get(item.destination.destination_id) ?? 0) < perDestination &&
        (this.busyWorkspaces.get(item.workspaceId) ?? 0) < perWorkspace;
      if (!fits) {
        waiting.push(item);
        continue;
      }
      this.sending += 1;
      this.track(this.deliver(item, this.holdSlot(item)));
    }
    this.queue = waiting;
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  /**
   * Counts a send against its destination's and workspace's bounds until it is off the wire;
   * recording its outcome is shared work and holds no slot. The release starts the next
   * queued sends, and wakes the loop to claim more once half the claim-ahead is used up.
   * It may be called more than once.
   */
  private holdSlot(item: ClaimedAttempt): () => void {
    const destination = item.destination.destination_id;
    countIn(this.busyDestinations, destination, 1);
    countIn(this.busyWorkspaces, item.workspaceId, 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.sending -= 1;
      countIn(this.busyDestinations, destination, -1);
      countIn(this.busyWorkspaces, item.workspaceId, -1);
      countIn(this.heldDestinations, destination, -1);
      countIn(this.heldWorkspaces, item.workspaceId, -1);
      if (this.running) this.startQueued();
      if (this.roomToClaim) this.wake?.();
    };
  }

  /** Never rejects: a failure here is logged, and the claim's lease brings the attempt back. */
  private async deliver(item: ClaimedAttempt, releaseSlot: () => void): Promise<void> {
    try {
      await this.sendAndRecord(item, releaseSlot);
    } catch (err) {
      this.deps.logger.error('delivery failed unexpectedly', { attempt_id: item.attemptId, err });
    } finally {
      releaseSlot();
    }
  }

  private async sendAndRecord(item: ClaimedAttempt, releaseSlot: () => void): Promise<void> {
    const sent = await sendAttempt(this.deps, {
      attemptId: item.attemptId,
      workspaceId: item.workspaceId,
      kind: item.kind,
      attempt: item.attempt,
      destination: item.destination,
      notification: item.alert === null ? null : { id: item.notificationId ?? item.attemptId, type: item.type, alert: item.alert },
      ownerEmail: item.ownerEmail,
    });
    releaseSlot();
    await new Promise<void>((done) => {
      this.unrecorded.push({ sent, done });
      this.scheduleRecording();
    });
  }

  /**
   * Group commit: one transaction records every send that finished meanwhile. The first
   * finished send waits up to RECORD_WAIT_MS for others (or until a batch's worth is there,
   * or nothing else is on the wire), so a burst costs a transaction per batch rather than per
   * send, however the sends' answers are spread. Only the attempt row waits, not the send.
   */
  private scheduleRecording(): void {
    if (this.recording || this.recordTimer !== null) return;
    if (this.unrecorded.length >= RECORD_BATCH || this.sending === 0) {
      void this.recordFinishedSends();
      return;
    }
    this.recordTimer = setTimeout(() => {
      this.recordTimer = null;
      void this.recordFinishedSends();
    }, RECORD_WAIT_MS);
  }

  private async recordFinishedSends(): Promise<void> {
    if (this.recording) return;
    if (this.recordTimer !== null) {
      clearTimeout(this.recordTimer);
      this.recordTimer = null;
    }
    this.recording = true;
    try {
      while (this.unrecorded.length > 0) {
        const batch = this.unrecorded.splice(0);
        try {
          await recordSentAttempts(
            this.deps,
            batch.map((b) => b.sent),
          );
        } catch (err) {
          // The claims' leases run out and the attempts are sent again.
          this.deps.logger.error('delivery outcomes could not be recorded', { attempts: batch.length, err });
        }
        for (const b of batch) b.done();
      }
    } finally {
      this.recording = false;
    }
  }

  private async updatePendingGauge(): Promise<void> {
    if (Date.now() - this.gaugeUpdatedAt < PENDING_GAUGE_EVERY_MS) return;
    this.gaugeUpdatedAt = Date.now();
    this.deps.metrics.deliveryPendingRetries.set(await countPendingRetries(this.deps.postgres));
  }

  private sleep(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, this.options.pollIntervalMs);
      this.wake = done;
    });
  }
}

function countIn(counts: Map<string, number>, key: string, change: number): void {
  const n = (counts.get(key) ?? 0) + change;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
