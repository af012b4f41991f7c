// Leases of received alerts (docs/alertmanager.md, Leases). Prometheus re-sends every active
// alert every minute with an endsAt a few minutes ahead: writing that moving end into the
// alert's row would rewrite every active alert at every round. So the exact end lives in the
// memory of the process that took the post, and the row holds only a durable, coarse bound
// (`lease_until`): the end as last written plus LEASE_SLACK, moved only when a post's end
// passes it (every half hour or so of re-posts, not every minute).
//
// - This process resolves an alert when its exact end passes (closed_by 'timeout'), provided
//   no other process took posts of that source since it last saw the alert: each process that
//   takes posts of a source records so in `worker_leases` (`alert-receiver:<source>:<process>`,
//   at most every RECEIVER_MARK_MS). Where another one did, its memory may hold a later end, so
//   the alert is left to the durable bound.
// - After a restart the memory is gone. So the first post of a source this process takes (one
//   with a firing alert, which says how long the sender's leases are) adopts every open alert
//   of the source it holds no end of: it holds for each the end `now + the longest lease` (the
//   source's resolve timeout, or the longest endsAt-ahead this process was given for the
//   source, whichever is longer; Prometheus gives 4 resend intervals) plus RECEIVER_MARK_MS.
//   An alert still firing is re-posted well within that and holds the sender's end again; one
//   whose sender stopped resolves about one lease after the restart, with the last end written
//   as its end. It is resolved by this process only if no other process took posts of the
//   source after the adoption (a process that took one before it holds an end no later).
// - The worker (leaseWorker.ts) resolves an alert whose durable bound passed: a process that
//   died, several processes taking the same source, a sender that never posts again after a
//   restart. A restart thus never resolves an alert that is still being re-posted, and an
//   alert its sender stopped resolves at the latest LEASE_SLACK after its last end.
import type { Alert } from '../alerts/model.js';
import { notificationOf } from '../alerts/notifications.js';
import { READ_COLUMNS } from '../alerts/store.js';
import { type BackgroundTask, periodicTask } from '../backgroundTask.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import { insertNotifications } from '../notifications/outbox.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';

/** How far past the end as written the durable bound lies (plus up to half of it more, spread by fingerprint). */
export const LEASE_SLACK_MS = 30 * 60_000;
/** How often, at most, this process records that it takes posts of a source. */
const RECEIVER_MARK_MS = 10_000;
/** How often this process looks for exact ends that passed. */
const RESOLVE_POLL_MS = 1000;
/** The alerts one process holds leases of; beyond it, the durable bound alone serves the rest. */
const MAX_HELD = 1_000_000;

/** The durable bound of a lease ending at `end`: spread over [slack, 1.5 × slack) by the fingerprint, so that alerts raised together are not rewritten together. */
export function durableBound(end: Date, fingerprint: string): Date {
  const spread = Number.parseInt(fingerprint.slice(-4), 16);
  const extra = Number.isFinite(spread) ? (spread / 0x10000) * (LEASE_SLACK_MS / 2) : 0;
  return new Date(end.getTime() + LEASE_SLACK_MS + Math.floor(extra));
}

interface Held {
  readonly sourceId: string;
  /** When this process resolves the alert if no post extends it. */
  end: number;
  /** The end the sender gave (for an adopted alert, the one last written): shown, and written when resolved. */
  given: number;
  /** When this process last saw the alert. */
  seenAt: number;
  /** Adopted after a (re)start, not posted to this process yet: no other process may have taken posts of the source since seenAt. */
  adopted: boolean;
}

/** Resolves these alerts if still open (a concurrent resolve wins); returns those it resolved. */
export async function resolveReceived(
  tx: Queryable,
  rows: readonly { alert_id: string; ends_at: string }[],
  now: Date,
  by: 'sender' | 'timeout',
): Promise<Alert[]> {
  if (rows.length === 0) return [];
  return tx.query<Alert>(
    `UPDATE alerts AS a SET status = 'resolved', resolved_at = $2, updated_at = $2, closed_by = $3, ends_at = x.ends_at
     FROM jsonb_to_recordset($1::jsonb) AS x(alert_id uuid, ends_at timestamptz)
     WHERE a.alert_id = x.alert_id AND a.status IN ('triggered', 'acknowledged')
     RETURNING ${READ_COLUMNS.split(',')
       .map((c) => `a.${c.trim()}`)
       .join(', ')}`,
    [JSON.stringify(rows), now, by],
  );
}

/** The exact leases of the received alerts this process took posts of. */
export class ReceivedLeases {
  /** This process, as other processes see it in worker_leases. */
  readonly processId = newId();
  private readonly held = new Map<string, Held>();
  private readonly marked = new Map<string, number>();
  /** Per source: the longest lease (endsAt ahead of the post) this process was given. */
  private readonly longest = new Map<string, number>();
  /** The sources whose open alerts this process adopted (at its first post of each). */
  private readonly adoptedSources = new Set<string>();

  /** The exact end this process holds for an alert, if any (for an adopted one, the end last written). */
  endOf(alertId: string): Date | null {
    const h = this.held.get(alertId);
    return h === undefined ? null : new Date(h.given);
  }

  /** Whether a post of the source should read its open alerts to adopt them (the first this process takes). */
  adopts(sourceId: string): boolean {
    return !this.adoptedSources.has(sourceId);
  }

  /**
   * After a post's transaction committed: the ends of the alerts it left open, those it resolved,
   * and, when `adopts` asked for them, the source's open alerts as read in the post (adopted
   * unless held), with the source's resolve timeout.
   */
  took(
    sourceId: string,
    open: readonly { alertId: string; end: Date }[],
    closed: readonly string[],
    now: Date,
    adopt?: { readonly alerts: readonly { alertId: string; endsAt: Date | null }[]; readonly resolveTimeoutMs: number },
  ): void {
    const at = now.getTime();
    for (const id of closed) this.held.delete(id);
    let longest = this.longest.get(sourceId) ?? 0;
    for (const { alertId, end } of open) {
      longest = Math.max(longest, end.getTime() - at);
      const h = this.held.get(alertId);
      if (h !== undefined) {
        h.end = h.given = end.getTime();
        h.seenAt = at;
        h.adopted = false;
      } else if (this.held.size < MAX_HELD) this.held.set(alertId, { sourceId, end: end.getTime(), given: end.getTime(), seenAt: at, adopted: false });
    }
    this.longest.set(sourceId, longest);
    // A post with no firing alert says nothing of the sender's leases: the adoption waits for one that does.
    if (adopt === undefined || open.length === 0 || this.adoptedSources.has(sourceId)) return;
    this.adoptedSources.add(sourceId);
    const closedNow = new Set(closed);
    const until = at + Math.max(adopt.resolveTimeoutMs, longest) + RECEIVER_MARK_MS;
    for (const { alertId, endsAt } of adopt.alerts) {
      if (this.held.has(alertId) || closedNow.has(alertId) || this.held.size >= MAX_HELD) continue;
      const given = endsAt?.getTime() ?? at;
      this.held.set(alertId, { sourceId, end: Math.max(until, given), given, seenAt: at, adopted: true });
    }
  }

  /** Records, in the post's transaction, that this process takes posts of the source (at most every RECEIVER_MARK_MS). */
  async mark(tx: Queryable, sourceId: string, now: Date): Promise<void> {
    const last = this.marked.get(sourceId);
    if (last !== undefined && now.getTime() - last < RECEIVER_MARK_MS) return;
    await tx.query(
      `INSERT INTO worker_leases (name, holder, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (name) DO UPDATE SET expires_at = GREATEST(worker_leases.expires_at, EXCLUDED.expires_at)`,
      [`alert-receiver:${sourceId}:${this.processId}`, this.processId, now],
    );
    this.marked.set(sourceId, now.getTime());
  }

  /** Resolves the alerts whose exact end passed at `now` where no other process took posts of their source since; returns how many. */
  async resolveDue(db: PostgresStore, now: Date): Promise<number> {
    const due = new Map<string, { alertId: string; given: number; since: number }[]>();
    for (const [alertId, h] of this.held) {
      if (h.end > now.getTime()) continue;
      const list = due.get(h.sourceId) ?? [];
      // Another process's mark may lag its post by RECEIVER_MARK_MS; for an adopted alert, the end
      // held covers that lag, and a mark before the adoption (a process gone at the restart) counts not.
      list.push({ alertId, given: h.given, since: h.adopted ? h.seenAt : h.seenAt - RECEIVER_MARK_MS });
      due.set(h.sourceId, list);
    }
    let resolved = 0;
    for (const [sourceId, list] of due) {
      for (const d of list) this.held.delete(d.alertId);
      const since = new Date(list.reduce((min, d) => Math.min(min, d.since), Number.POSITIVE_INFINITY));
      resolved += await db.transaction(async (tx) => {
        const others = await tx.query(`SELECT 1 FROM worker_leases WHERE name LIKE $1 AND holder <> $2 AND expires_at > $3 LIMIT 1`, [
          `alert-receiver:${sourceId}:%`,
          this.processId,
          since,
        ]);
        if (others.length > 0) return 0; // another process may hold a later end: the durable bound decides
        const done = await resolveReceived(
          tx,
          list.map((d) => ({ alert_id: d.alertId, ends_at: new Date(d.given).toISOString() })),
          now,
          'timeout',
        );
        await insertNotifications(
          tx,
          done.map((a) => notificationOf('alert.resolved', a)),
          now,
        );
        return done.length;
      });
    }
    return resolved;
  }

  /** The periodic resolution of exact ends, in every process that takes posts (ROLE all, api). */
  task(db: PostgresStore, logger: Logger): BackgroundTask {
    let runs = 0;
    return periodicTask({
      name: 'received-alert-exact-leases',
      intervalMs: RESOLVE_POLL_MS,
      run: async () => {
        // The marks of processes gone for a day are dropped, about once an hour.
        if (runs++ % 3600 === 0) {
          await db.query(`DELETE FROM worker_leases WHERE name LIKE 'alert-receiver:%' AND expires_at < $1`, [new Date(Date.now() - 86_400_000)]);
        }
        const resolved = await this.resolveDue(db, new Date());
        if (resolved > 0) logger.info('received alerts resolved: lease passed', { resolved });
      },
      logger,
      // Entries taken out of memory by a failed run are left to the durable bound.
      failureMessage: 'resolving received alerts past their exact lease failed',
    });
  }
}
