// The end of a silence: an alert whose alert.triggered notification was silenced (held) is
// notified once no silence covers its policy any more, if it is still open; one resolved or
// archived meanwhile sends nothing. The delivery worker calls this every poll; a held
// notification is released in the same transaction that writes the new one, so it is
// notified exactly once however many workers run.
import { OPEN_STATUSES } from '../alerts/model.js';
import { lockHeldNotifications, notifyAgain, outboxHas, unholdNotifications, type HeldNotification } from '../alerts/outbox.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import { anySilenceCovers } from './coverage.js';
import { silencesOverlapping } from './store.js';

const RELEASE_BATCH = 500;

/** Releases the held notifications whose silences have ended at `now`; returns how many alerts were notified again. */
export async function releaseHeldNotifications(postgres: PostgresStore, now: Date): Promise<number> {
  if (!(await outboxHas(postgres, 'held'))) return 0;
  return postgres.transaction(async (tx) => {
    let notified = 0;
    let after: string | null = null;
    for (;;) {
      const held = await lockHeldNotifications(tx, RELEASE_BATCH, after);
      if (held.length === 0) return notified;
      notified += await releaseEnded(tx, held, now);
      after = held[held.length - 1]!.notificationId;
    }
  });
}

async function releaseEnded(tx: Queryable, held: readonly HeldNotification[], now: Date): Promise<number> {
  const workspaces = [...new Set(held.map((h) => h.alert.workspace_id))];
  const silences = await silencesOverlapping(tx, workspaces, now, now);
  const isOpen = (h: HeldNotification) => OPEN_STATUSES.includes(h.alert.status);
  const stillSilenced = (h: HeldNotification) =>
    anySilenceCovers(
      silences.filter((s) => s.workspace_id === h.alert.workspace_id),
      h.alert.policy_id,
      now.getTime(),
    );
  const released = held.filter((h) => !isOpen(h) || !stillSilenced(h));
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
