// The end of a silence: an alert whose alert.triggered notification was silenced (held) is
// notified once no silence covers its policy any more, if it is still open; one resolved or
// archived meanwhile sends nothing. The delivery worker calls this every poll; a held
// notification is released in the same transaction that writes the new one, so it is
// notified exactly once however many workers run.
import { OPEN_STATUSES } from '../alerts/model.js';
import { lockHeldNotifications, notifyAgain, type HeldNotification } from '../alerts/notifications.js';
import { matchingLabels } from '../matchers/alertLabels.js';
import { outboxHas, unholdNotifications } from '../notifications/outbox.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import { anySilenceCovers } from './coverage.js';
import { silencesOverlapping } from './store.js';

const RELEASE_BATCH = 500;

/** What else holds notifications (inhibition): of these held ones, the ids still held at `now`. */
export type StillHeld = (tx: Queryable, held: readonly HeldNotification[], now: Date) => Promise<ReadonlySet<string>>;

/**
 * Releases the held notifications that neither a silence nor `stillHeld` (inhibition, passed
 * in by the delivery worker) holds any more at `now`; returns how many alerts were notified again.
 */
export async function releaseHeldNotifications(postgres: PostgresStore, now: Date, stillHeld?: StillHeld): Promise<number> {
  if (!(await outboxHas(postgres, 'held'))) return 0;
  return postgres.transaction(async (tx) => {
    let notified = 0;
    let after: string | null = null;
    for (;;) {
      const held = await lockHeldNotifications(tx, RELEASE_BATCH, after);
      if (held.length === 0) return notified;
      notified += await releaseEnded(tx, held, now, stillHeld);
      after = held[held.length - 1]!.notificationId;
    }
  });
}

async function releaseEnded(tx: Queryable, held: readonly HeldNotification[], now: Date, stillHeld?: StillHeld): Promise<number> {
  const workspaces = [...new Set(held.map((h) => h.alert.workspace_id))];
  const silences = await silencesOverlapping(tx, workspaces, now, now);
  const isOpen = (h: HeldNotification) => OPEN_STATUSES.includes(h.alert.status);
  const stillSilenced = (h: HeldNotification) =>
    anySilenceCovers(
      silences.filter((s) => s.workspace_id === h.alert.workspace_id),
      { id: h.alert.policy_id ?? h.alert.alert_source_id!, labels: matchingLabels(h.alert) },
      now.getTime(),
    );
  const heldElsewhere = stillHeld === undefined ? new Set<string>() : await stillHeld(tx, held.filter(isOpen), now);
  const released = held.filter((h) => !isOpen(h) || (!stillSilenced(h) && !heldElsewhere.has(h.notificationId)));
  const toNotify = released.filter(isOpen);
  await unholdNotifications(
    tx,
    released.map((h) => h.notificationId),
  );
  await notifyAgain(
    tx,
    toNotify.map((h) => h.alert),
    now,
  );
  return toNotify.length;
}
