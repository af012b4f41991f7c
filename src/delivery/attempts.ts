// Delivery attempts in Postgres: one row per send, written before it and completed after
// it. The worker's queue is the `pending` rows whose next_attempt_at has come; a claim
// pushes next_attempt_at ahead by a lease and marks the row claimed, in a short transaction
// with SKIP LOCKED, so two workers never take the same row; a worker that dies mid-send
// leaves it due again, closed as interrupted with a re-send of its own (interrupted.ts).
import { markAlerted } from '../alerts/store.js';
import type { Credentials, Destination } from '../destinations/model.js';
import { type DeliveryOutcome, recordDeliveryOutcomes } from '../destinations/store.js';
import { newId } from '../ids.js';
import type { EscalationPosition, Notification, NotifiedAlert } from '../notifications/model.js';
import type { Page } from '../page.js';
import type { Queryable } from '../stores/postgres.js';
import { resendInterrupted } from './interrupted.js';
import type { NextStep } from './retryPolicy.js';

/** handoff: a schedule.handoff notice, filed under the handoff's id. */
export type AttemptKind = 'alert' | 'test' | 'handoff';
/**
 * silenced: a silence covered the notification; inhibited: an inhibition rule of its alert
 * source did; both recorded, never sent. interrupted: the process stopped during the send
 * (interrupted.ts). no_one_on_call: an escalation step found no one on call in a schedule it
 * names (no destination; recorded, never sent).
 */
export type AttemptStatus = 'pending' | 'delivered' | 'failed' | 'exhausted' | 'silenced' | 'interrupted' | 'no_one_on_call' | 'inhibited';
/** The statuses an attempt is recorded with that are never sent. */
type RecordedOnly = 'silenced' | 'no_one_on_call' | 'inhibited';

export interface DeliveryAttempt {
  attempt_id: string;
  alert_id: string;
  /** null for no_one_on_call (no destination was tried). */
  destination_id: string | null;
  notification_id: string | null;
  kind: AttemptKind;
  type: Notification['type'];
  channel: string;
  target: string;
  attempt: number;
  status: AttemptStatus;
  response_status: number | null;
  error_message: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `attempt_id, alert_id, destination_id, notification_id, kind, type, channel, target, attempt, status,
  response_status, error_message, next_attempt_at, created_at, updated_at`;

export interface NewAttempt {
  readonly workspaceId: string;
  readonly alertId: string;
  /** null only for no_one_on_call. */
  readonly destinationId: string | null;
  readonly notificationId: string | null;
  readonly kind: AttemptKind;
  readonly type: Notification['type'];
  readonly channel: string;
  readonly target: string;
  readonly attempt: number;
  /** In how many ms (database clock) the worker may send it; null for a send the caller makes at once (tests). */
  readonly dueInMs: number | null;
}

/**
 * Inserts attempts in one statement, pending (to send), silenced (a silence covered their
 * notification) or no_one_on_call (recorded, never sent); returns their ids in order.
 */
export async function insertPendingAttempts(db: Queryable, attempts: readonly NewAttempt[], status: 'pending' | RecordedOnly = 'pending'): Promise<string[]> {
  if (attempts.length === 0) return [];
  const ids = attempts.map(() => newId());
  const column = <K extends keyof NewAttempt>(key: K) => attempts.map((a) => a[key]);
  await db.query(
    `INSERT INTO delivery_attempts (attempt_id, workspace_id, alert_id, destination_id, notification_id, kind, type, channel, target, attempt, status, next_attempt_at)
     SELECT id, ws, alert, dest, notif, kind, type, channel, target, attempt, $12,
       CASE WHEN due_ms IS NULL OR $12 <> 'pending' THEN NULL ELSE now() + due_ms * interval '1 millisecond' END
     FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::uuid[], $5::uuid[], $6::text[], $7::text[], $8::text[], $9::text[], $10::int[], $11::bigint[])
       AS t(id, ws, alert, dest, notif, kind, type, channel, target, attempt, due_ms)`,
    [
      ids,
      column('workspaceId'),
      column('alertId'),
      column('destinationId'),
      column('notificationId'),
      column('kind'),
      column('type'),
      column('channel'),
      column('target'),
      column('attempt'),
      column('dueInMs'),
      status,
    ],
  );
  return ids;
}

/** A claimed attempt with everything needed to send it. */
export interface ClaimedAttempt {
  readonly attemptId: string;
  readonly workspaceId: string;
  readonly alertId: string;
  readonly notificationId: string | null;
  readonly kind: AttemptKind;
  readonly type: Notification['type'];
  readonly attempt: number;
  readonly destination: Pick<
    Destination,
    | 'destination_id'
    | 'channel'
    | 'url'
    | 'credentials'
    | 'enabled'
    | 'signing_secret'
    | 'previous_signing_secret'
    | 'previous_signing_secret_expires_at'
    | 'title_template'
    | 'message_template'
    | 'body_template'
    | 'format'
  >;
  readonly alert: NotifiedAlert | null;
  readonly ownerEmail: string | null;
}

interface ClaimRow {
  attempt_id: string;
  workspace_id: string;
  alert_id: string;
  notification_id: string | null;
  kind: AttemptKind;
  type: Notification['type'];
  attempt: number;
  destination_id: string;
  channel: Destination['channel'];
  url: string | null;
  credentials: Credentials | null;
  enabled: boolean;
  signing_secret: string | null;
  previous_signing_secret: string | null;
  previous_signing_secret_expires_at: Date | null;
  title_template: string | null;
  message_template: string | null;
  body_template: string | null;
  format: Destination['format'];
  alert: NotifiedAlert | null;
  owner_email: string | null;
}

/** How many sends one destination and one workspace may have in flight, and what this worker already has. */
export interface SlotBounds {
  readonly perDestination: number;
  readonly perWorkspace: number;
  /** Sends in flight now, per destination and per workspace. */
  readonly busyDestinations: ReadonlyMap<string, number>;
  readonly busyWorkspaces: ReadonlyMap<string, number>;
}

/**
 * Whether any attempt is due: one statement on the due index, so that an idle poll skips the
 * claim below, which Postgres plans anew at each call (5-8 ms on the embedded one under
 * ingest load, four times a second).
 */
export async function hasDueAttempts(db: Queryable): Promise<boolean> {
  const rows = await db.query<{ found: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM delivery_attempts WHERE status = 'pending' AND next_attempt_at <= now()) AS found`,
  );
  return rows[0]?.found === true;
}

/** Due rows looked at per claim, per free slot: enough to find other destinations behind one with a backlog. */
const CANDIDATES_PER_SLOT = 8;

interface Candidate {
  attempt_id: string;
  destination_id: string;
  workspace_id: string;
  /** Claimed before and its lease ran out: its send was interrupted. */
  interrupted: boolean;
}

/**
 * Takes up to `limit` due attempts for this worker for `leaseMs`, oldest first, without
 * letting one destination or one workspace hold more than its bound of this worker's sends
 * (counting those already in flight): a target that hangs then delays only its own attempts.
 * Two statements, each led by an index: the oldest due attempts of the destinations and
 * workspaces below their bound (a walk of the due index that stops after a few slots'
 * worth), then, of those the bounds allow (withinBounds), the ones still due, locked and
 * leased, skipping what another worker holds. One statement that allotted the slots with
 * window functions read every due attempt at each claim: 18-20 ms a claim with 10,000 due.
 */
export async function claimDueAttempts(db: Queryable, limit: number, leaseMs: number, bounds: SlotBounds): Promise<ClaimedAttempt[]> {
  const findCandidates = () =>
    db.query<Candidate>(
      `SELECT attempt_id, destination_id, workspace_id, claimed_at IS NOT NULL AS interrupted FROM delivery_attempts
       WHERE status = 'pending' AND next_attempt_at <= now()
         AND destination_id <> ALL ($1::uuid[]) AND workspace_id <> ALL ($2::text[])
       ORDER BY next_attempt_at LIMIT $3`,
      [atBound(bounds.busyDestinations, bounds.perDestination), atBound(bounds.busyWorkspaces, bounds.perWorkspace), limit * CANDIDATES_PER_SLOT],
    );
  let candidates = await findCandidates();
  const interrupted = candidates.filter((c) => c.interrupted).map((c) => c.attempt_id);
  // Rare (a worker stopped mid-send): close those rows and look again, finding their re-sends.
  if (interrupted.length > 0 && (await resendInterrupted(db, interrupted)) > 0) candidates = await findCandidates();
  candidates = candidates.filter((c) => !c.interrupted);
  const allowed = withinBounds(candidates, limit, bounds);
  if (allowed.length === 0) return [];
  const rows = await db.query<ClaimRow>(
    `WITH due AS (
       SELECT attempt_id FROM delivery_attempts
       WHERE attempt_id = ANY ($1::uuid[]) AND status = 'pending' AND next_attempt_at <= now()
       FOR UPDATE SKIP LOCKED
     ), claimed AS (
       -- ANY ($1) as well as IN due: the rows are found by primary key, whatever the planner guesses of due.
       UPDATE delivery_attempts a SET next_attempt_at = now() + $2 * interval '1 millisecond', claimed_at = now(), updated_at = now()
       WHERE a.attempt_id = ANY ($1::uuid[]) AND a.attempt_id IN (SELECT attempt_id FROM due)
       RETURNING a.attempt_id, a.workspace_id, a.alert_id, a.notification_id, a.kind, a.type, a.attempt, a.destination_id
     )
     SELECT c.attempt_id, c.workspace_id, c.alert_id, c.notification_id, c.kind, c.type, c.attempt, c.destination_id,
            d.channel, d.url, d.credentials, d.enabled, d.signing_secret, d.previous_signing_secret,
            d.previous_signing_secret_expires_at, d.title_template, d.message_template, d.body_template, d.format, n.alert, w.email AS owner_email
     FROM claimed c
     JOIN destinations d ON d.destination_id = c.destination_id
     JOIN workspaces w ON w.user_id = c.workspace_id
     LEFT JOIN alert_notifications n ON n.notification_id = c.notification_id`,
    [allowed, leaseMs],
  );
  // Oldest first, as the worker queues them.
  const order = new Map(allowed.map((id, i) => [id, i]));
  rows.sort((a, b) => order.get(a.attempt_id)! - order.get(b.attempt_id)!);
  return rows.map((r) => ({
    attemptId: r.attempt_id,
    workspaceId: r.workspace_id,
    alertId: r.alert_id,
    notificationId: r.notification_id,
    kind: r.kind,
    type: r.type,
    attempt: r.attempt,
    destination: {
      destination_id: r.destination_id,
      channel: r.channel,
      url: r.url,
      credentials: r.credentials,
      enabled: r.enabled,
      signing_secret: r.signing_secret,
      previous_signing_secret: r.previous_signing_secret,
      previous_signing_secret_expires_at: r.previous_signing_secret_expires_at,
      title_template: r.title_template,
      message_template: r.message_template,
      body_template: r.body_template,
      format: r.format,
    },
    alert: r.alert,
    ownerEmail: r.owner_email,
  }));
}

/** The destinations or workspaces whose sends held by this worker have reached their bound. */
function atBound(held: ReadonlyMap<string, number>, bound: number): string[] {
  const full: string[] = [];
  for (const [key, n] of held) if (n >= bound) full.push(key);
  return full;
}

/**
 * Of the candidates, oldest first, the first `limit` whose destination and workspace still
 * have a slot: each candidate takes its destination's next slot and, when that one is within
 * the bound, its workspace's next.
 */
function withinBounds(candidates: readonly Candidate[], limit: number, bounds: SlotBounds): string[] {
  const destinations = new Map(bounds.busyDestinations);
  const workspaces = new Map(bounds.busyWorkspaces);
  const allowed: string[] = [];
  for (const c of candidates) {
    const destinationSlot = (destinations.get(c.destination_id) ?? 0) + 1;
    destinations.set(c.destination_id, destinationSlot);
    if (destinationSlot > bounds.perDestination) continue;
    const workspaceSlot = (workspaces.get(c.workspace_id) ?? 0) + 1;
    workspaces.set(c.workspace_id, workspaceSlot);
    if (workspaceSlot > bounds.perWorkspace) continue;
    allowed.push(c.attempt_id);
    if (allowed.length === limit) break;
  }
  return allowed;
}

export interface AttemptResult {
  readonly attemptId: string;
  readonly step: NextStep;
  readonly target: string;
  readonly responseStatus: number | null;
  readonly errorMessage: string | null;
}

/** An attempt recordAttemptResults completed, as its RETURNING names the columns. */
interface CompletedRow extends Pick<DeliveryAttempt, 'attempt_id' | 'kind' | 'type' | 'channel' | 'target' | 'attempt' | 'status' | 'error_message'> {
  workspaceId: string;
  alertId: string;
  destinationId: string;
  notificationId: string | null;
  retry_ms: number | null;
}

/**
 * Records the outcomes of sent attempts (call it in a transaction): each attempt's status,
 * each destination's latest outcome, the alerts' first delivery (alerted_at), and the
 * retries as new pending rows. Set-based, so a batch costs a few statements. An attempt that
 * is no longer pending (another worker finished it after this one's lease ran out) is left
 * alone, so a retry is never scheduled twice. Returns the ids it recorded.
 */
export async function recordAttemptResults(db: Queryable, results: readonly AttemptResult[]): Promise<Set<string>> {
  if (results.length === 0) return new Set();
  const completed = await db.query<CompletedRow>(
    `UPDATE delivery_attempts a SET status = r.status, response_status = r.response_status, error_message = r.error_message,
       target = r.target, next_attempt_at = CASE WHEN r.retry_ms IS NULL THEN NULL ELSE now() + r.retry_ms * interval '1 millisecond' END,
       updated_at = now()
     FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::text[], $6::bigint[])
       AS r(attempt_id, status, response_status, error_message, target, retry_ms)
     WHERE a.attempt_id = r.attempt_id AND a.status = 'pending'
     RETURNING a.attempt_id, a.workspace_id AS "workspaceId", a.alert_id AS "alertId", a.destination_id AS "destinationId",
       a.notification_id AS "notificationId", a.kind, a.type, a.channel, a.target, a.attempt, a.status, a.error_message, r.retry_ms`,
    [
      results.map((r) => r.attemptId),
      results.map((r) => r.step.status),
      results.map((r) => r.responseStatus),
      results.map((r) => r.errorMessage),
      results.map((r) => r.target),
      results.map((r) => (r.step.status === 'failed' ? r.step.retryInMs : null)),
    ],
  );
  const recorded = new Set(completed.map((row) => row.attempt_id));
  const order = new Map(results.map((r, i) => [r.attemptId, i]));
  completed.sort((a, b) => order.get(a.attempt_id)! - order.get(b.attempt_id)!);

  // The latest outcome per destination: delivered at all in this batch, and the last error unless the last send succeeded.
  const latest = new Map<string, DeliveryOutcome>();
  for (const row of completed) {
    const previous = latest.get(row.destinationId);
    const delivered = row.status === 'delivered';
    latest.set(row.destinationId, {
      destinationId: row.destinationId,
      delivered: delivered || (previous?.delivered ?? false),
      error: delivered ? null : row.error_message,
    });
  }
  await recordDeliveryOutcomes(db, [...latest.values()]);
  await markAlerted(
    db,
    completed.filter((row) => row.status === 'delivered' && row.kind === 'alert'),
  );
  const retries = completed.filter((row) => row.retry_ms !== null);
  await insertPendingAttempts(
    db,
    retries.map((row) => ({
      workspaceId: row.workspaceId,
      alertId: row.alertId,
      destinationId: row.destinationId,
      notificationId: row.notificationId,
      kind: row.kind,
      type: row.type,
      channel: row.channel,
      target: row.target,
      attempt: row.attempt + 1,
      dueInMs: Number(row.retry_ms),
    })),
  );
  return recorded;
}

export const DELIVERY_KINDS = ['alert', 'test', 'handoff', 'all'] as const;
export type DeliveryKindFilter = (typeof DELIVERY_KINDS)[number];

/** An attempt as an alert's history shows it: with the escalation step it sent, if it sent one. */
export interface AttemptInHistory extends DeliveryAttempt {
  /** alert.escalated: which step of the chain (from the notification it sent); else null. */
  escalation: EscalationPosition | null;
}

/** Attempts of one alert (or test send) of the workspace, newest first. */
export async function listAttemptsOfAlert(
  db: Queryable,
  workspaceId: string,
  alertId: string,
  kind: DeliveryKindFilter,
  page: Page,
): Promise<AttemptInHistory[]> {
  // The step is in the notification the attempt sent (the outbox keeps it with the alert).
  return db.query<AttemptInHistory>(
    `SELECT ${COLUMNS},
       (SELECT n.alert -> 'escalation' FROM alert_notifications n
        WHERE n.notification_id = delivery_attempts.notification_id AND delivery_attempts.type = 'alert.escalated') AS escalation
     FROM delivery_attempts
     WHERE workspace_id = $1 AND alert_id = $2 AND ($3 = 'all' OR kind = $3)
     ORDER BY created_at DESC, attempt_id DESC LIMIT $4 OFFSET $5`,
    [workspaceId, alertId, kind, page.limit, page.offset],
  );
}

/** Whether the id names an alert or a test send of the workspace (else the history is a 404). */
export async function alertOrTestExists(db: Queryable, workspaceId: string, alertId: string): Promise<boolean> {
  const rows = await db.query(
    `SELECT 1 FROM alerts WHERE workspace_id = $1 AND alert_id = $2
     UNION ALL SELECT 1 FROM delivery_attempts WHERE workspace_id = $1 AND alert_id = $2
     LIMIT 1`,
    [workspaceId, alertId],
  );
  return rows.length > 0;
}

/** Retries waiting for their time (attempt 2 and later, not yet sent). */
export async function countPendingRetries(db: Queryable): Promise<number> {
  const rows = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM delivery_attempts WHERE status = 'pending' AND attempt > 1`);
  return rows[0]?.n ?? 0;
}
