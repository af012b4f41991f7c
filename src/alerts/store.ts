// Alerts in Postgres. Reads filter by the workspace: another workspace's alert is simply not
// found. The evaluation worker writes in batches, one statement per kind of change however
// many policies a cycle touches; the caller holds the transaction.
import type { Page } from '../page.js';
import type { Queryable } from '../stores/postgres.js';
import type { AcknowledgedVia, Alert, AlertStamp, AlertStatus } from './model.js';

export const ALERT_COLUMNS = `alert_id, workspace_id, policy_id, event_id, agent, event, labels, title, channel, period, aggregate,
  condition, threshold, severity, recovery_threshold, compare_to, value, aggregate_value, comparison_value, comparison_bucket_start,
  count, min, max, bucket_start, bucket_end, breaching_since, breaching_buckets, peak_value, silent_since, status, triggered_at,
  acknowledged_at, resolved_at, archived_at, alerted_at, notified_at, updated_at, alert_source_id, annotations, starts_at, ends_at, generator_url`;

/** What reads return: the columns evaluation writes, and how the alert was acknowledged (set by the lifecycle actions only). */
export const READ_COLUMNS = `${ALERT_COLUMNS}, acknowledged_via`;

/**
 * A page of the workspace's alerts, newest first, with `status` or any: what the list reads,
 * whole or as ids and versions. Written once: PresentedAlertList's answer is exact only
 * while both read the same page.
 */
const LIST_PAGE = `FROM alerts
     WHERE workspace_id = $1 AND ($2::text IS NULL OR status = $2)
     ORDER BY triggered_at DESC, alert_id DESC LIMIT $3 OFFSET $4`;

const listPageParams = (workspaceId: string, page: Page, status?: AlertStatus) => [workspaceId, status ?? null, page.limit, page.offset];

export function listAlertRows(db: Queryable, workspaceId: string, page: Page, status?: AlertStatus): Promise<Alert[]> {
  return db.query<Alert>(`SELECT ${READ_COLUMNS} ${LIST_PAGE}`, listPageParams(workspaceId, page, status));
}

/** An alert as a list names it: its id and its row version (xmin, which every write to the row changes). */
export interface AlertVersion {
  alert_id: string;
  version: string;
}

/** The page listAlertRows reads, as ids and row versions only. */
export function listAlertVersions(db: Queryable, workspaceId: string, page: Page, status?: AlertStatus): Promise<AlertVersion[]> {
  return db.query<AlertVersion>(`SELECT alert_id, xmin::text AS version ${LIST_PAGE}`, listPageParams(workspaceId, page, status));
}

/** These alerts of the workspace as they are now, each with its row version. */
export function readAlertsWithVersions(db: Queryable, workspaceId: string, alertIds: readonly string[]): Promise<(Alert & AlertVersion)[]> {
  if (alertIds.length === 0) return Promise.resolve([]);
  return db.query<Alert & AlertVersion>(`SELECT ${READ_COLUMNS}, xmin::text AS version FROM alerts WHERE workspace_id = $1 AND alert_id = ANY ($2::uuid[])`, [
    workspaceId,
    alertIds,
  ]);
}

/** The alert, or null; `forUpdate` locks it until the transaction ends. */
export async function findAlert(db: Queryable, workspaceId: string, alertId: string, forUpdate = false): Promise<Alert | null> {
  const rows = await db.query<Alert>(`SELECT ${READ_COLUMNS} FROM alerts WHERE workspace_id = $1 AND alert_id = $2${forUpdate ? ' FOR UPDATE' : ''}`, [
    workspaceId,
    alertId,
  ]);
  return rows[0] ?? null;
}

/** The alert whatever its workspace (an acknowledge link names none); `forUpdate` locks it until the transaction ends. */
export async function findAlertById(db: Queryable, alertId: string, forUpdate = false): Promise<Alert | null> {
  const rows = await db.query<Alert>(`SELECT ${READ_COLUMNS} FROM alerts WHERE alert_id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [alertId]);
  return rows[0] ?? null;
}

/**
 * These alerts, locked until the transaction ends; one that another transaction holds is
 * skipped (its caller tries again later), so this never waits and never deadlocks.
 */
export function lockAlertsSkippingLocked(tx: Queryable, alertIds: readonly string[]): Promise<Alert[]> {
  if (alertIds.length === 0) return Promise.resolve([]);
  return tx.query<Alert>(`SELECT ${READ_COLUMNS} FROM alerts WHERE alert_id = ANY ($1::uuid[]) ORDER BY alert_id FOR UPDATE SKIP LOCKED`, [alertIds]);
}

/** Moves an alert to `status`, setting the timestamp column the transition names. */
export async function setAlertStatus(
  db: Queryable,
  workspaceId: string,
  alertId: string,
  status: AlertStatus,
  stampColumn: AlertStamp,
  at: Date,
  via: AcknowledgedVia = 'api',
): Promise<Alert> {
  const via_ = stampColumn === 'acknowledged_at' ? ', acknowledged_via = $5' : '';
  const rows = await db.query<Alert>(
    `UPDATE alerts SET status = $3, ${stampColumn} = $4, updated_at = $4${via_}
     WHERE workspace_id = $1 AND alert_id = $2 RETURNING ${READ_COLUMNS}`,
    via_ === '' ? [workspaceId, alertId, status, at] : [workspaceId, alertId, status, at, via],
  );
  return rows[0]!;
}

/** Notified again at `at` (a held notification released): reminders count from it. */
export function markNotified(tx: Queryable, alertIds: readonly string[], at: Date): Promise<Alert[]> {
  return tx.query<Alert>(`UPDATE alerts SET notified_at = $2 WHERE alert_id = ANY ($1::uuid[]) RETURNING ${ALERT_COLUMNS}`, [alertIds, at]);
}

/**
 * Moves the notified_at of every triggered alert whose reminder is due at `now` on by whole
 * reminder periods, locking them (skipping those another transaction holds); returns them.
 */
export function advanceDueReminders(tx: Queryable, now: Date): Promise<Alert[]> {
  return tx.query<Alert>(
    `WITH due AS (
       SELECT a.alert_id, r.renotify_minutes * interval '1 minute' AS every
       FROM alerts a
       JOIN LATERAL (
         SELECT p.renotify_minutes FROM policies p WHERE p.policy_id = a.policy_id
         UNION ALL
         -- A received alert is reminded by its alert source's renotify_minutes.
         SELECT s.renotify_minutes FROM alert_sources s WHERE s.alert_source_id = a.alert_source_id
       ) r ON true
       WHERE a.status = 'triggered' AND r.renotify_minutes IS NOT NULL
         AND a.notified_at + r.renotify_minutes * interval '1 minute' <= $1::timestamptz
       FOR UPDATE OF a SKIP LOCKED
     )
     UPDATE alerts a
     SET notified_at = a.notified_at + due.every * floor(extract(epoch FROM $1::timestamptz - a.notified_at) / extract(epoch FROM due.every))
     FROM due WHERE a.alert_id = due.alert_id
     RETURNING a.*`,
    [now],
  );
}

/**
 * Delivered for the first time (a send of theirs succeeded): sets alerted_at of those not yet
 * delivered. Only those: a row rewritten with its own value is still a new row version (work
 * for the store, and every reader that keeps rows by version).
 */
export async function markAlerted(db: Queryable, alerts: readonly { workspaceId: string; alertId: string }[]): Promise<void> {
  if (alerts.length === 0) return;
  await db.query(
    `UPDATE alerts SET alerted_at = now()
     WHERE alerted_at IS NULL AND (workspace_id, alert_id) IN (SELECT * FROM unnest($1::text[], $2::uuid[]))`,
    [alerts.map((a) => a.workspaceId), alerts.map((a) => a.alertId)],
  );
}

const RECORD_TYPES = `alert_id uuid, workspace_id text, policy_id uuid, event_id uuid, agent text, event text, labels jsonb, title text,
  channel text, period text, aggregate text, condition text, threshold double precision, severity text,
  recovery_threshold double precision, compare_to text, value double precision, aggregate_value double precision,
  comparison_value double precision, comparison_bucket_start timestamptz, count bigint, min double precision,
  max double precision, bucket_start timestamptz, bucket_end timestamptz, breaching_since timestamptz, breaching_buckets integer,
  peak_value double precision, silent_since timestamptz, status text, triggered_at timestamptz, acknowledged_at timestamptz,
  resolved_at timestamptz, archived_at timestamptz, alerted_at timestamptz, notified_at timestamptz, updated_at timestamptz,
  alert_source_id uuid, annotations jsonb, starts_at timestamptz, ends_at timestamptz, generator_url text`;

const asRecords = (alerts: readonly Alert[]) => JSON.stringify(alerts);

/** The open alerts of these policies, locked until the transaction ends. */
export async function lockOpenAlerts(tx: Queryable, policyIds: readonly string[]): Promise<Alert[]> {
  if (policyIds.length === 0) return [];
  return tx.query<Alert>(
    // The status list is spelled as in the predicate of alerts_one_open_per_group, so that index serves.
    `SELECT ${ALERT_COLUMNS} FROM alerts WHERE policy_id = ANY($1::uuid[]) AND status IN ('triggered', 'acknowledged')
     ORDER BY policy_id FOR UPDATE`,
    [policyIds],
  );
}

/** Inserts new alerts. The unique index on open alerts refuses a second open alert of a policy and label set. */
export async function insertAlerts(tx: Queryable, alerts: readonly Alert[]): Promise<void> {
  if (alerts.length === 0) return;
  await tx.query(
    `INSERT INTO alerts (${ALERT_COLUMNS})
     SELECT ${ALERT_COLUMNS} FROM jsonb_to_recordset($1::jsonb) AS x(${RECORD_TYPES})`,
    [asRecords(alerts)],
  );
}

/** Writes the evaluation result and lifecycle of existing alerts. */
export async function updateAlerts(tx: Queryable, alerts: readonly Alert[]): Promise<void> {
  if (alerts.length === 0) return;
  await tx.query(
    `UPDATE alerts AS a SET value = x.value, aggregate_value = x.aggregate_value, comparison_value = x.comparison_value,
       comparison_bucket_start = x.comparison_bucket_start, count = x.count, min = x.min, max = x.max, bucket_start = x.bucket_start,
       bucket_end = x.bucket_end, breaching_buckets = x.breaching_buckets, peak_value = x.peak_value, silent_since = x.silent_since,
       status = x.status, resolved_at = x.resolved_at, updated_at = x.updated_at
     FROM jsonb_to_recordset($1::jsonb) AS x(${RECORD_TYPES})
     WHERE a.alert_id = x.alert_id`,
    [asRecords(alerts)],
  );
}
