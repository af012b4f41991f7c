// Grouping in Postgres (docs/api.md, Grouping): a stage between dispatch and sending. Dispatch
// hands it the attempts it just wrote; for a destination with a grouping window, the first
// alert.triggered (or alert.resolved) after a quiet spell stays due at once and opens a window
// (a notification_groups row), and every further one of that type within the window is held:
// its attempt joins the group, pending with no due time, so the delivery worker never claims
// it alone. When the window ends, the group is due; the group sender (groupSender.ts) claims
// it, sends one alert.group message and writes the outcome to every member's attempt.
import { GROUPED_TYPES, type GroupedType, type NotifiedAlert } from '../notifications/model.js';
import { newId } from '../ids.js';
import type { Queryable } from '../stores/postgres.js';

interface Candidate {
  attempt_id: string;
  workspace_id: string;
  destination_id: string;
  type: GroupedType;
  group_window_seconds: number;
}

/**
 * Holds, among the attempts dispatch has just inserted (in dispatch order, inside its
 * transaction), those that a destination's grouping window covers; returns how many it held.
 * The destinations concerned are locked until the transaction ends, so two dispatchers never
 * open two windows for one destination.
 */
export async function holdForGrouping(tx: Queryable, attemptIds: readonly string[]): Promise<number> {
  if (attemptIds.length === 0) return 0;
  const found = await tx.query<Candidate>(
    `SELECT a.attempt_id, a.workspace_id, a.destination_id, a.type, d.group_window_seconds
     FROM delivery_attempts a JOIN destinations d ON d.destination_id = a.destination_id
     WHERE a.attempt_id = ANY ($1::uuid[]) AND a.kind = 'alert' AND a.status = 'pending'
       AND a.type = ANY ($2::text[]) AND d.group_window_seconds > 0`,
    [attemptIds, GROUPED_TYPES],
  );
  if (found.length === 0) return 0;
  const order = new Map(attemptIds.map((id, i) => [id, i]));
  const candidates = found.sort((a, b) => order.get(a.attempt_id)! - order.get(b.attempt_id)!);
  const destinations = [...new Set(candidates.map((c) => c.destination_id))].sort();
  await tx.query('SELECT 1 FROM destinations WHERE destination_id = ANY ($1::uuid[]) ORDER BY destination_id FOR UPDATE', [destinations]);
  // clock_timestamp, not now(): a window that ended while this transaction ran is closed.
  const open = await tx.query<{ group_id: string; destination_id: string; group_type: string }>(
    `SELECT group_id, destination_id, group_type FROM notification_groups
     WHERE destination_id = ANY ($1::uuid[]) AND status = 'pending' AND attempt = 1 AND window_ends_at > clock_timestamp()
     FOR UPDATE`,
    [destinations],
  );
  const windows = new Map(open.map((g) => [`${g.destination_id} ${g.group_type}`, g.group_id]));
  const opened: Candidate[] = [];
  const openedIds: string[] = [];
  const members: { attemptId: string; groupId: string }[] = [];
  for (const c of candidates) {
    const key = `${c.destination_id} ${c.type}`;
    const groupId = windows.get(key);
    if (groupId !== undefined) {
      members.push({ attemptId: c.attempt_id, groupId });
      continue;
    }
    // The first after a quiet spell goes out at once and opens the window.
    const id = newId();
    windows.set(key, id);
    opened.push(c);
    openedIds.push(id);
  }
  if (opened.length > 0) {
    await tx.query(
      `INSERT INTO notification_groups (group_id, workspace_id, destination_id, group_type, window_started_at, window_ends_at, next_attempt_at)
       SELECT g, ws, d, t, clock_timestamp(), clock_timestamp() + s * interval '1 second', clock_timestamp() + s * interval '1 second'
       FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::int[]) AS x(g, ws, d, t, s)`,
      [openedIds, opened.map((c) => c.workspace_id), opened.map((c) => c.destination_id), opened.map((c) => c.type), opened.map((c) => c.group_window_seconds)],
    );
  }
  if (members.length > 0) {
    await tx.query(
      `UPDATE delivery_attempts a SET group_id = m.group_id, next_attempt_at = NULL
       FROM unnest($1::uuid[], $2::uuid[]) AS m(attempt_id, group_id) WHERE a.attempt_id = m.attempt_id`,
      [members.map((m) => m.attemptId), members.map((m) => m.groupId)],
    );
  }
  return members.length;
}

/** A group whose window has ended, claimed for sending. */
export interface ClaimedGroup {
  readonly groupId: string;
  readonly workspaceId: string;
  readonly destinationId: string;
  readonly type: GroupedType;
  readonly attempt: number;
}

/** Takes up to `limit` due groups for `leaseMs`: a sender that dies mid-send leaves them due again after it. */
export async function claimDueGroups(db: Queryable, limit: number, leaseMs: number): Promise<ClaimedGroup[]> {
  const rows = await db.query<{ group_id: string; workspace_id: string; destination_id: string; group_type: GroupedType; attempt: number }>(
    `WITH due AS (
       SELECT group_id FROM notification_groups WHERE status = 'pending' AND next_attempt_at <= now()
       ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED
     )
     UPDATE notification_groups g SET next_attempt_at = now() + $2 * interval '1 millisecond'
     FROM due WHERE g.group_id = due.group_id
     RETURNING g.group_id, g.workspace_id, g.destination_id, g.group_type, g.attempt`,
    [limit, leaseMs],
  );
  return rows.map((r) => ({ groupId: r.group_id, workspaceId: r.workspace_id, destinationId: r.destination_id, type: r.group_type, attempt: r.attempt }));
}

/** Whether any group is due: one cheap statement, so an idle poll skips the claim. */
export async function hasDueGroups(db: Queryable): Promise<boolean> {
  const rows = await db.query<{ found: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM notification_groups WHERE status = 'pending' AND next_attempt_at <= now()) AS found`,
  );
  return rows[0]?.found === true;
}

export interface GroupMember {
  readonly attemptId: string;
  readonly alert: NotifiedAlert | null;
}

/** The members of a group at its attempt, oldest first. */
export async function groupMembers(db: Queryable, group: ClaimedGroup): Promise<GroupMember[]> {
  const rows = await db.query<{ attempt_id: string; alert: NotifiedAlert | null }>(
    `SELECT a.attempt_id, n.alert FROM delivery_attempts a
     LEFT JOIN alert_notifications n ON n.notification_id = a.notification_id
     WHERE a.group_id = $1 AND a.attempt = $2 AND a.status = 'pending'
     ORDER BY a.created_at, a.attempt_id`,
    [group.groupId, group.attempt],
  );
  return rows.map((r) => ({ attemptId: r.attempt_id, alert: r.alert }));
}

/**
 * Records a group's send on the group (call it in a transaction, before the members'
 * outcomes): done, or due again for its retry with its members' retries joining it. False
 * when the group is no longer at this attempt (another sender recorded it after this one's
 * lease ran out): then nothing is recorded.
 */
export async function recordGroupSend(tx: Queryable, group: ClaimedGroup, retryInMs: number | null): Promise<boolean> {
  const rows = await tx.query(
    `UPDATE notification_groups SET
       status = CASE WHEN $3::bigint IS NULL THEN 'done' ELSE 'pending' END,
       attempt = CASE WHEN $3::bigint IS NULL THEN attempt ELSE attempt + 1 END,
       next_attempt_at = CASE WHEN $3::bigint IS NULL THEN NULL ELSE now() + $3 * interval '1 millisecond' END
     WHERE group_id = $1 AND attempt = $2 AND status = 'pending' RETURNING 1`,
    [group.groupId, group.attempt, retryInMs],
  );
  return rows.length > 0;
}

/**
 * The retries recordAttemptResults has just written for the members (attempt + 1, due on their
 * own) join the group instead, held like the first members.
 */
export async function holdMemberRetries(tx: Queryable, group: ClaimedGroup, memberIds: readonly string[]): Promise<void> {
  await tx.query(
    `UPDATE delivery_attempts r SET group_id = $1, next_attempt_at = NULL
     FROM delivery_attempts m
     WHERE m.attempt_id = ANY ($2::uuid[]) AND r.notification_id = m.notification_id AND r.destination_id = m.destination_id
       AND r.attempt = m.attempt + 1 AND r.status = 'pending' AND r.group_id IS NULL`,
    [group.groupId, memberIds],
  );
}

/** A group that ended with nothing held: nothing to send. */
export async function closeEmptyGroup(db: Queryable, group: ClaimedGroup): Promise<void> {
  await db.query(`UPDATE notification_groups SET status = 'done', next_attempt_at = NULL WHERE group_id = $1 AND attempt = $2`, [group.groupId, group.attempt]);
}
