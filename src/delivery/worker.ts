// The delivery worker: turns outbox notifications into attempts, claims due attempts and
// sends them, up to `concurrency` at a time and at most `perDestination` to one destination
// (`perWorkspace` for one workspace), so a target that hangs holds only its own share of the
// slots and the others keep flowing. It records the sends that finish meanwhile
// together in one transaction. Everything it knows lives in Postgres, so a restart picks up
// pending retries, and several workers share the work through SKIP LOCKED claims. stop()
// lets the sends in flight finish and record their outcome.
import type { BackgroundTask } from '../backgroundTask.js';
import { claimDueAttempts, countPendingRetries, hasDueAttempts, type ClaimedAttempt } from './attempts.js';
import { recordSentAttempts, sendAttempt, type DeliveryDeps, type SentAttempt } from './deliver.js';
import { releaseHeldNotifications } from '../silences/release.js';
import { dispatchNotifications } from './outbox.js';

export interface DeliveryWorkerOptions {
  /** Sleep between polls when there is nothing to do. */
  readonly pollIntervalMs: number;
  /** Sends in flight at most. */
  readonly concurrency: number;
  /** Sends in flight to one destination at most. */
  readonly perDestination: number;
  /** Sends in flight for one workspace at most. */
  readonly perWorkspace: number;
}

const DISPATCH_BATCH = 500;
const PENDING_GAUGE_EVERY_MS = 5_000;
const STOP_GRACE_MS = 5_000;

export class DeliveryWorker implements BackgroundTask {
  readonly name = 'delivery';
  private running = false;
  private loop: Promise<void> | null = null;
  /** Sends from claim until their outcome is recorded. */
  private readonly inFlight = new Set<Promise<void>>();
  /** Sends on the wire counted per destination and per workspace (only keys with sends on the wire). */
  private readonly busyDestinations = new Map<string, number>();
  private readonly busyWorkspaces = new Map<string, number>();
  private wake: (() => void) | null = null;
  private gaugeUpdatedAt = 0;
  /** The outbox is read again at once while it had rows, else once per poll interval. */
  private outboxCheckedAt = 0;
  private outboxHadRows = true;
  /** Held notifications (silenced alert.triggered) are looked at once per poll interval. */
  private heldCheckedAt = 0;
  private unrecorded: { sent: SentAttempt; done: () => void }[] = [];
  private recording = false;

  constructor(
    private readonly deps: DeliveryDeps,
    private readonly options: DeliveryWorkerOptions,
  ) {}

  /** How long a claim holds an attempt: well past the send's time-out, so only a dead worker loses it. */
  private get leaseMs(): number {
    return this.deps.settings.delivery.timeoutMs * 3 + 30_000;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /**
   * Waits for the round and the sends in flight, for as long as a send may take and a little
   * more. A store that went away mid-query never answers; past the bound, the claims' leases
   * make whatever did not finish due again for the next worker.
   */
  async stop(): Promise<void> {
    this.running = false;
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
  }

  /** One round: release what ended silences held, dispatch, then fill the free send slots. True when there was work. */
  private async tick(): Promise<boolean> {
    let dispatched = 0;
    if (Date.now() - this.heldCheckedAt >= this.options.pollIntervalMs) {
      this.heldCheckedAt = Date.now();
      if ((await releaseHeldNotifications(this.deps.postgres, new Date())) > 0) this.outboxHadRows = true;
    }
    if (this.outboxHadRows || Date.now() - this.outboxCheckedAt >= this.options.pollIntervalMs) {
      this.outboxCheckedAt = Date.now();
      dispatched = (await dispatchNotifications(this.deps.postgres, this.deps.settings, DISPATCH_BATCH)).notifications;
      this.outboxHadRows = dispatched > 0;
    }
    const free = this.options.concurrency - this.inFlight.size;
    const { perDestination, perWorkspace } = this.options;
    const bounds = { perDestination, perWorkspace, busyDestinations: this.busyDestinations, busyWorkspaces: this.busyWorkspaces };
    const due = free > 0 && (await hasDueAttempts(this.deps.postgres));
    const claimed = due ? await claimDueAttempts(this.deps.postgres, free, this.leaseMs, bounds) : [];
    for (const item of claimed) this.track(this.deliver(item, this.holdSlot(item)));
    await this.updatePendingGauge();
    // With every slot busy, wait for one to free up rather than poll.
    if (this.inFlight.size >= this.options.concurrency) await Promise.race(this.inFlight);
    return dispatched > 0 || claimed.length > 0;
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => {
      this.inFlight.delete(work);
      this.wake?.();
    });
  }

  /**
   * Counts a send against its destination's and workspace's bounds until it is off the wire;
   * recording its outcome is shared work and holds only a slot of `concurrency`. Returns the
   * release, which may be called more than once.
   */
  private holdSlot(item: ClaimedAttempt): () => void {
    const destination = item.destination.destination_id;
    countIn(this.busyDestinations, destination, 1);
    countIn(this.busyWorkspaces, item.workspaceId, 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      countIn(this.busyDestinations, destination, -1);
      countIn(this.busyWorkspaces, item.workspaceId, -1);
      this.wake?.();
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
      void this.recordFinishedSends();
    });
  }

  /** Group commit: one transaction records every send that finished while the last one ran. */
  private async recordFinishedSends(): Promise<void> {
    if (this.recording) return;
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
