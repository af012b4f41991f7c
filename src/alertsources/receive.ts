// Receiving (docs/alertmanager.md): the alerts an Alertmanager client posts to
// /alertmanager/<alert_source_id>/api/v2/alerts become alerts of the source, one per label set
// (its fingerprint), with the lifecycle, outbox and deliveries of policy alerts. A post is one
// transaction: one query reads, for every label set posted, its open alert and whether a
// person closed the last one of the same startsAt; only the alerts that change are written
// (raised, resolved, their annotations changed, or their end past the durable bound of their
// lease, about every half hour: leases.ts), so Prometheus re-sending 10,000 unchanged active
// alerts every minute writes no alert row.
import type { Alert } from '../alerts/model.js';
import { notificationOf } from '../alerts/notifications.js';
import { READ_COLUMNS } from '../alerts/store.js';
import { invalid, notFound, pointerSegment, type ErrorDetail } from '../errors.js';
import { newId } from '../ids.js';
import { labelsFingerprint, sortedLabels, type Labels } from '../labels/labels.js';
import { insertNotifications, type NewNotification } from '../notifications/outbox.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import { type AlertSource, severityOf } from './model.js';
import { durableBound, type ReceivedLeases, resolveReceived } from './leases.js';
import { findAlertSource } from './store.js';
import { textProblems } from '../validation/textRules.js';

/** Bounds of a post (docs/alertmanager.md, Bounds). */
export const RECEIVE_LIMITS = {
  /** Alerts in one post (Prometheus sends at most 64 per request); the body is at most 1 MiB as every JSON body (413). */
  alertsPerPost: 5_000,
  /** Labels, and annotations, of one alert. */
  labelsPerAlert: 100,
  /** Characters of one label or annotation name. */
  nameLength: 1024,
  /** Characters of one label value. */
  labelValueLength: 4096,
  /** Characters of one annotation value. */
  annotationValueLength: 16_384,
  generatorUrlLength: 4096,
} as const;

/** A postable alert as checked: Alertmanager's fields. */
export interface PostedAlert {
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly startsAt: Date | null;
  readonly endsAt: Date | null;
  readonly generatorURL: string | null;
}

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function stringMap(value: unknown, path: string, what: 'label' | 'annotation', details: ErrorDetail[]): Labels {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    details.push({ path, message: `${what}s must be an object of names to strings` });
    return {};
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > RECEIVE_LIMITS.labelsPerAlert) {
    details.push({ path, message: `at most ${RECEIVE_LIMITS.labelsPerAlert} ${what}s per alert (${entries.length} given)` });
    return {};
  }
  const max = what === 'label' ? RECEIVE_LIMITS.labelValueLength : RECEIVE_LIMITS.annotationValueLength;
  const out: Record<string, string> = {};
  for (const [name, v] of entries) {
    const at = `${path}/${pointerSegment(name)}`;
    if (name.length > RECEIVE_LIMITS.nameLength)
      details.push({ path: at, message: `invalid ${what} name: longer than ${RECEIVE_LIMITS.nameLength} characters` });
    else if (what === 'label' && !LABEL_NAME.test(name)) details.push({ path: at, message: `invalid label set: invalid name "${name}"` });
    else if (typeof v !== 'string') details.push({ path: at, message: `invalid ${what} value: must be a string` });
    else if (v.length > max) details.push({ path: at, message: `invalid ${what} value: longer than ${max} characters` });
    else if (what === 'label' && v === '')
      continue; // Alertmanager drops empty label values
    else out[name] = v;
  }
  return out;
}

function time(value: unknown, path: string, details: ErrorDetail[]): Date | null {
  if (value === undefined || value === null || value === '' || value === '0001-01-01T00:00:00Z' || value === '0001-01-01T00:00:00.000Z') return null;
  const ms = typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) {
    details.push({ path, message: `parsing time ${JSON.stringify(value)} as RFC 3339 failed` });
    return null;
  }
  return new Date(ms);
}

/** Checks a post's body as Alertmanager's postable alerts; 400 (invalid_alerts) naming each problem by its path. */
export function parsePostedAlerts(body: unknown): PostedAlert[] {
  if (!Array.isArray(body)) throw invalid('invalid_alerts', 'the body must be a JSON array of postable alerts', [{ path: '', message: 'expected an array' }]);
  if (body.length > RECEIVE_LIMITS.alertsPerPost) {
    throw invalid('too_many_alerts', `at most ${RECEIVE_LIMITS.alertsPerPost} alerts per post (${body.length} given); send them in several posts`);
  }
  const details: ErrorDetail[] = [];
  const alerts = body.map((raw, i): PostedAlert | null => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      details.push({ path: `/${i}`, message: 'expected an object' });
      return null;
    }
    const a = raw as Record<string, unknown>;
    const before = details.length;
    const labels = stringMap(a.labels, `/${i}/labels`, 'label', details);
    if (details.length === before && Object.keys(labels).length === 0) details.push({ path: `/${i}/labels`, message: 'at least one label pair required' });
    const annotations = stringMap(a.annotations, `/${i}/annotations`, 'annotation', details);
    const startsAt = time(a.startsAt, `/${i}/startsAt`, details);
    const endsAt = time(a.endsAt, `/${i}/endsAt`, details);
    if (startsAt !== null && endsAt !== null && endsAt < startsAt) details.push({ path: `/${i}/endsAt`, message: 'start time must be before end time' });
    const url = a.generatorURL;
    if (url !== undefined && url !== null && (typeof url !== 'string' || url.length > RECEIVE_LIMITS.generatorUrlLength)) {
      details.push({ path: `/${i}/generatorURL`, message: `must be a string of at most ${RECEIVE_LIMITS.generatorUrlLength} characters` });
    }
    // Text no store can keep (NUL, a lone surrogate), in any field: refused as every body's is.
    details.push(...textProblems(a, `/${i}`));
    return { labels, annotations, startsAt, endsAt, generatorURL: typeof url === 'string' && url !== '' ? url : null };
  });
  if (details.length > 0) throw invalid('invalid_alerts', `${details[0]!.path}: ${details[0]!.message}`, details);
  return alerts as PostedAlert[];
}

/** What a post did: alerts raised, changed without notifying (annotations, lease), resolved, and left as they were. */
export interface ReceiveResult {
  readonly raised: number;
  readonly updated: number;
  readonly resolved: number;
  readonly unchanged: number;
}

interface Seen {
  fingerprint: string;
  alert_id: string | null;
  status: string | null;
  annotations: Labels | null;
  generator_url: string | null;
  starts_at: Date | null;
  lease_until: Date | null;
  /** The startsAt of the last alert of the label set that a person closed (a post with it raises nothing). */
  held_starts_at: Date | null;
}

const sameMap = (a: Labels | null, b: Labels) => {
  const ka = Object.keys(a ?? {});
  return ka.length === Object.keys(b).length && ka.every((k) => a![k] === b[k]);
};

/** The alert's title: annotation summary, else label alertname, else its labels' fingerprint. */
const titleOf = (p: PostedAlert, fingerprint: string) => p.annotations.summary ?? p.labels.alertname ?? `Alert ${fingerprint}`;

/**
 * Takes a post of the source's sender. The last alert of each label set in the post counts.
 * 404 when the source is not the workspace's.
 */
export async function receiveAlerts(
  db: PostgresStore,
  workspaceId: string,
  sourceId: string,
  posted: readonly PostedAlert[],
  now: Date,
  leases: ReceivedLeases,
): Promise<ReceiveResult> {
  const byFingerprint = new Map<string, PostedAlert>();
  for (const p of posted) byFingerprint.set(labelsFingerprint(p.labels), p);
  const held: { alertId: string; end: Date }[] = [];
  const closed: string[] = [];
  let takenBy = sourceId;
  let adopt: { alerts: { alertId: string; endsAt: Date | null }[]; resolveTimeoutMs: number } | undefined;
  const result = await db.transaction(async (tx) => {
    held.length = 0;
    closed.length = 0;
    adopt = undefined;
    const source = await findAlertSource(tx, workspaceId, sourceId);
    if (!source) throw notFound('alert source');
    takenBy = source.alert_source_id;
    if (byFingerprint.size === 0) return { raised: 0, updated: 0, resolved: 0, unchanged: 0 };
    await leases.mark(tx, source.alert_source_id, now);
    // The first post of the source this process takes: its open alerts, for the leases to adopt (leases.ts).
    if (leases.adopts(source.alert_source_id)) {
      const open = await tx.query<{ alert_id: string; ends_at: Date | null }>(
        `SELECT alert_id, ends_at FROM alerts WHERE alert_source_id = $1 AND status IN ('triggered', 'acknowledged')`,
        [source.alert_source_id],
      );
      adopt = { alerts: open.map((o) => ({ alertId: o.alert_id, endsAt: o.ends_at })), resolveTimeoutMs: source.resolve_timeout_minutes * 60_000 };
    }
    const seen = await readSeen(tx, source.alert_source_id, [...byFingerprint.keys()]);
    const timeoutMs = source.resolve_timeout_minutes * 60_000;
    const inserts: Record<string, unknown>[] = [];
    const updates: Record<string, unknown>[] = [];
    const resolves: { alert_id: string; ends_at: string }[] = [];
    let unchanged = 0;
    for (const s of seen) {
      const p = byFingerprint.get(s.fingerprint)!;
      const end = p.endsAt ?? new Date(now.getTime() + timeoutMs);
      const firing = end.getTime() > now.getTime();
      const open = s.alert_id !== null;
      if (!firing) {
        if (open) resolves.push({ alert_id: s.alert_id!, ends_at: end.toISOString() });
        else unchanged++;
        continue;
      }
      const startsAt = p.startsAt ?? (open ? s.starts_at : null) ?? now;
      // The durable bound of the lease: a re-post moves it only once its end passes it (leases.ts).
      const leaseUntil = durableBound(end, s.fingerprint);
      const fields = {
        annotations: p.annotations,
        generator_url: p.generatorURL,
        starts_at: startsAt.toISOString(),
        ends_at: end.toISOString(),
        lease_until: leaseUntil.toISOString(),
        title: titleOf(p, s.fingerprint),
      };
      if (!open) {
        if (s.held_starts_at !== null && s.held_starts_at.getTime() === startsAt.getTime()) {
          unchanged++;
          continue;
        }
        inserts.push({ ...newAlertRow(source, p, s.fingerprint, now), ...fields });
        continue;
      }
      const changed =
        !sameMap(s.annotations, p.annotations) ||
        s.generator_url !== p.generatorURL ||
        s.starts_at?.getTime() !== startsAt.getTime() ||
        s.lease_until === null ||
        end.getTime() > s.lease_until.getTime();
      if (changed) updates.push({ alert_id: s.alert_id, ...fields, updated_at: now.toISOString() });
      else unchanged++;
      held.push({ alertId: s.alert_id!, end });
    }
    const notifications: NewNotification[] = [];
    const raised = await insertReceived(tx, inserts);
    const ends = new Map(inserts.map((r) => [r.alert_id as string, new Date(r.ends_at as string)]));
    for (const a of raised) held.push({ alertId: a.alert_id, end: ends.get(a.alert_id)! });
    notifications.push(...raised.map((a) => notificationOf('alert.triggered', a)));
    const updated = await updateReceived(tx, updates);
    const resolved = await resolveReceived(tx, resolves, now, 'sender');
    notifications.push(...resolved.map((a) => notificationOf('alert.resolved', a)));
    closed.push(...resolves.map((r) => r.alert_id));
    await insertNotifications(tx, notifications, now);
    return { raised: raised.length, updated, resolved: resolved.length, unchanged: unchanged + (inserts.length - raised.length) };
  });
  leases.took(takenBy, held, closed, now, adopt);
  return result;
}

function newAlertRow(source: AlertSource, p: PostedAlert, fingerprint: string, now: Date): Record<string, unknown> {
  return {
    alert_id: newId(),
    workspace_id: source.workspace_id,
    alert_source_id: source.alert_source_id,
    agent: p.labels.instance ?? '',
    event: p.labels.alertname ?? '',
    labels: sortedLabels(p.labels),
    fingerprint,
    severity: severityOf(source, p.labels),
    triggered_at: now.toISOString(),
  };
}

/** For each fingerprint: the source's open alert of it, and the startsAt of the last one a person closed when none is open. */
async function readSeen(tx: Queryable, sourceId: string, fingerprints: readonly string[]): Promise<Seen[]> {
  return tx.query<Seen>(
    `SELECT f.fingerprint, o.alert_id, o.status, o.annotations, o.generator_url, o.starts_at, o.lease_until, h.starts_at AS held_starts_at
     FROM unnest($2::text[]) AS f(fingerprint)
     LEFT JOIN alerts o ON o.alert_source_id = $1 AND o.fingerprint = f.fingerprint AND o.status IN ('triggered', 'acknowledged')
     LEFT JOIN LATERAL (
       SELECT c.starts_at, c.closed_by FROM alerts c
       WHERE o.alert_id IS NULL AND c.alert_source_id = $1 AND c.fingerprint = f.fingerprint
       ORDER BY c.triggered_at DESC LIMIT 1
     ) h ON h.closed_by IS NULL`,
    [sourceId, fingerprints],
  );
}

const RECEIVED_TYPES = `alert_id uuid, workspace_id text, alert_source_id uuid, agent text, event text, labels jsonb, fingerprint text,
  severity text, triggered_at timestamptz, annotations jsonb, generator_url text, starts_at timestamptz, ends_at timestamptz,
  lease_until timestamptz, title text, updated_at timestamptz`;

/** Raises these alerts; one whose label set another post raised meanwhile is left out (the unique index on open alerts). */
async function insertReceived(tx: Queryable, rows: readonly Record<string, unknown>[]): Promise<Alert[]> {
  if (rows.length === 0) return [];
  return tx.query<Alert>(
    `INSERT INTO alerts (alert_id, workspace_id, policy_id, event_id, alert_source_id, agent, event, labels, fingerprint, title, channel,
       period, aggregate, condition, threshold, severity, status, triggered_at, notified_at, updated_at, annotations, generator_url,
       starts_at, ends_at, lease_until)
     SELECT x.alert_id, x.workspace_id, NULL, NULL, x.alert_source_id, x.agent, x.event, x.labels, x.fingerprint, x.title, 'default',
       '', '', '', NULL, x.severity, 'triggered', x.triggered_at, x.triggered_at, x.triggered_at, x.annotations, x.generator_url,
       x.starts_at, x.ends_at, x.lease_until
     FROM jsonb_to_recordset($1::jsonb) AS x(${RECEIVED_TYPES})
     ON CONFLICT (alert_source_id, fingerprint) WHERE alert_source_id IS NOT NULL AND status IN ('triggered', 'acknowledged') DO NOTHING
     RETURNING ${READ_COLUMNS}`,
    [JSON.stringify(rows)],
  );
}

/** Moves the annotations, title and lease of open alerts (acknowledged ones stay acknowledged); nothing is notified. */
async function updateReceived(tx: Queryable, rows: readonly Record<string, unknown>[]): Promise<number> {
  if (rows.length === 0) return 0;
  const done = await tx.query(
    `UPDATE alerts AS a SET annotations = x.annotations, generator_url = x.generator_url, starts_at = x.starts_at, ends_at = x.ends_at,
       lease_until = x.lease_until, title = x.title, updated_at = x.updated_at
     FROM jsonb_to_recordset($1::jsonb) AS x(${RECEIVED_TYPES})
     WHERE a.alert_id = x.alert_id AND a.status IN ('triggered', 'acknowledged')
     RETURNING a.alert_id`,
    [JSON.stringify(rows)],
  );
  return done.length;
}

const LEASE_BATCH = 1000;

/** Resolves the open received alerts whose lease has passed at `now` (notified as resolved); returns how many. */
export async function resolveExpiredLeases(db: PostgresStore, now: Date): Promise<number> {
  return db.transaction(async (tx) => {
    const due = await tx.query<{ alert_id: string; ends_at: Date }>(
      `SELECT alert_id, ends_at FROM alerts
       WHERE alert_source_id IS NOT NULL AND status IN ('triggered', 'acknowledged') AND lease_until <= $1
       ORDER BY lease_until LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, LEASE_BATCH],
    );
    const resolved = await resolveReceived(
      tx,
      due.map((d) => ({ alert_id: d.alert_id, ends_at: d.ends_at.toISOString() })),
      now,
      'timeout',
    );
    await insertNotifications(
      tx,
      resolved.map((a) => notificationOf('alert.resolved', a)),
      now,
    );
    return resolved.length;
  });
}

/** Resolves the source's open alerts (the source is being deleted), in the caller's transaction. */
export async function resolveAlertsOfSource(tx: Queryable, source: AlertSource, now: Date): Promise<void> {
  const open = await tx.query<{ alert_id: string; ends_at: Date | null }>(
    `SELECT alert_id, ends_at FROM alerts WHERE alert_source_id = $1 AND status IN ('triggered', 'acknowledged') FOR UPDATE`,
    [source.alert_source_id],
  );
  const resolved = await resolveReceived(
    tx,
    open.map((o) => ({ alert_id: o.alert_id, ends_at: now.toISOString() })),
    now,
    'sender',
  );
  await insertNotifications(
    tx,
    resolved.map((a) => notificationOf('alert.resolved', a)),
    now,
  );
}
