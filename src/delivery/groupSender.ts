// The group sender (docs/api.md, Grouping): a background task that claims the groups whose
// window has ended, sends each as one alert.group message through its destination's channel,
// and writes that one outcome to every member's attempt, with the retries the delivery
// schedule gives (a retried group is sent again as a whole, under the same notification id).
// Everything lives in Postgres, so a restart in the middle of a window loses and doubles
// nothing, and several workers share the groups through SKIP LOCKED claims.
import type { Notification, NotifiedAlert } from '../notifications/model.js';
import type { BackgroundTask } from '../backgroundTask.js';
import { findDestination, ownerEmailOf } from '../destinations/store.js';
import { recordAttemptResults } from './attempts.js';
import { type DeliveryDeps, type SentAttempt, sendAttempt } from './deliver.js';
import { finishedWithin } from '../backgroundTask.js';
import { type ClaimedGroup, claimDueGroups, closeEmptyGroup, groupMembers, hasDueGroups, holdMemberRetries, recordGroupSend } from './groups.js';

/** Groups sent at once by one sender. */
const GROUPS_PER_ROUND = 16;

/** How much longer than a send's time-out stop() waits for the round in progress. */
const STOP_GRACE_MS = 5_000;
export class GroupSender implements BackgroundTask {
  readonly name = 'delivery-groups';
  private running = false;
  private loop: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly deps: DeliveryDeps,
    private readonly pollIntervalMs: number,
  ) {}

  private get leaseMs(): number {
    const { timeoutMs, leaseGraceMs } = this.deps.settings.delivery;
    return timeoutMs * 3 + leaseGraceMs;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
    // A group's send takes at most the delivery time-out; a round stuck on a store that went away is left to its lease.
    if (!(await finishedWithin(this.loop, this.deps.settings.delivery.timeoutMs + STOP_GRACE_MS))) {
      this.deps.logger.warn('group sender stopped before its round finished; claimed groups will be sent after their lease');
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      let sent = 0;
      try {
        sent = await this.sendDueGroups();
      } catch (err) {
        this.deps.logger.error('group sender round failed', { err });
      }
      if (this.running && sent === 0) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          this.timer = setTimeout(resolve, this.pollIntervalMs);
        });
      }
    }
  }

  /** One round: claims due groups and sends them side by side; returns how many it claimed. */
  async sendDueGroups(): Promise<number> {
    const { postgres } = this.deps;
    if (!(await hasDueGroups(postgres))) return 0;
    const groups = await claimDueGroups(postgres, GROUPS_PER_ROUND, this.leaseMs);
    await Promise.all(groups.map((group) => this.sendGroup(group)));
    return groups.length;
  }

  private async sendGroup(group: ClaimedGroup): Promise<void> {
    const { postgres, logger } = this.deps;
    try {
      const members = await groupMembers(postgres, group);
      const destination = await findDestination(postgres, group.workspaceId, group.destinationId);
      if (members.length === 0 || destination === null) {
        await closeEmptyGroup(postgres, group);
        return;
      }
      const alerts = members.map((m) => m.alert).filter((a): a is NotifiedAlert => a !== null);
      const notification: Notification = { id: group.groupId, type: 'alert.group', alert: alerts[0] ?? {}, group: { type: group.type, alerts } };
      const ownerEmail = destination.channel === 'email' ? await ownerEmailOf(postgres, group.workspaceId) : null;
      const sent = await sendAttempt(this.deps, {
        attemptId: group.groupId,
        workspaceId: group.workspaceId,
        kind: 'alert',
        attempt: group.attempt,
        destination,
        notification,
        ownerEmail,
      });
      await this.record(group, members, sent);
    } catch (err) {
      // The claim's lease brings the group back.
      logger.error('group send failed unexpectedly', { group_id: group.groupId, err });
    }
  }

  /** The one outcome on the group and on each member's attempt, in one transaction; then counted and logged. */
  private async record(group: ClaimedGroup, members: readonly { attemptId: string }[], sent: SentAttempt): Promise<void> {
    const { postgres, metrics, logger } = this.deps;
    const { outcome, step, target } = sent;
    const memberIds = members.map((m) => m.attemptId);
    const recorded = await postgres.transaction(async (tx) => {
      if (!(await recordGroupSend(tx, group, step.status === 'failed' ? step.retryInMs : null))) return false;
      await recordAttemptResults(
        tx,
        memberIds.map((attemptId) => ({
          attemptId,
          step,
          target,
          responseStatus: outcome.responseStatus,
          errorMessage: outcome.result === 'delivered' ? null : `${outcome.reason}: ${outcome.message}`,
        })),
      );
      if (step.status === 'failed') await holdMemberRetries(tx, group, memberIds);
      return true;
    });
    if (!recorded) return;
    const channel = sent.item.destination.channel;
    metrics.deliveryAttemptSeconds.observe({ channel }, sent.seconds);
    metrics.deliveries.inc({ channel, outcome: step.status }, memberIds.length);
    const fields = {
      group_id: group.groupId,
      destination_id: group.destinationId,
      workspace_id: group.workspaceId,
      channel,
      target,
      group_type: group.type,
      alerts: memberIds.length,
      attempt: group.attempt,
      status: step.status,
      response_status: outcome.responseStatus,
      duration_ms: Math.round(sent.seconds * 1000),
    };
    if (outcome.result === 'delivered') logger.info('delivery group sent', fields);
    else {
      metrics.deliveryFailures.inc({ channel, reason: outcome.reason });
      logger.warn('delivery group failed', { ...fields, reason: outcome.reason, error: outcome.message });
    }
  }
}
