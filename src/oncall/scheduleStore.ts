// Schedules and their overrides in Postgres. Every function on a schedule takes the
// workspace and filters by it: another workspace's schedule is simply not found.
import { newId } from '../ids.js';
import { newLinkToken } from '../linkTokens.js';
import type { PageOrAll } from '../page.js';
import type { Queryable } from '../stores/postgres.js';
import type { TimeRange } from '../time/range.js';
import type { Layer, Override, OverrideFields, Schedule, ScheduleFields } from './model.js';

const COLUMNS = 'schedule_id, workspace_id, key, name, timezone, layers, notify_handoffs, ical_token, created_at, updated_at';

/** A layer as stored: its start as ISO text. */
type StoredLayer = Omit<Layer, 'start'> & { start: string };
type Row = Omit<Schedule, 'layers'> & { layers: StoredLayer[] };

const fromRow = (row: Row): Schedule => ({ ...row, layers: row.layers.map((l) => ({ ...l, start: new Date(l.start) })) });
const layersJson = (layers: readonly Layer[]) => JSON.stringify(layers.map((l) => ({ ...l, start: l.start.toISOString() })));
const memberIds = (layers: readonly Layer[]) => [...new Set(layers.flatMap((l) => l.members))];

export async function insertSchedule(db: Queryable, workspaceId: string, fields: ScheduleFields): Promise<Schedule> {
  const rows = await db.query<Row>(
    `INSERT INTO schedules (schedule_id, workspace_id, name, timezone, layers, member_ids, notify_handoffs, ical_token)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6::uuid[], $7, $8) RETURNING ${COLUMNS}`,
    [newId(), workspaceId, fields.name, fields.timezone, layersJson(fields.layers), memberIds(fields.layers), fields.notify_handoffs, newLinkToken()],
  );
  return fromRow(rows[0]!);
}

/** The schedule, or null; `forUpdate` locks it until the transaction ends (overrides are checked under this lock). */
export async function findSchedule(db: Queryable, workspaceId: string, id: string, forUpdate = false): Promise<Schedule | null> {
  const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM schedules WHERE workspace_id = $1 AND schedule_id = $2${forUpdate ? ' FOR UPDATE' : ''}`, [
    workspaceId,
    id,
  ]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** A schedule by its id alone, for its calendar feed (the token decides). */
export async function findScheduleById(db: Queryable, id: string): Promise<Schedule | null> {
  const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM schedules WHERE schedule_id = $1`, [id]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** The workspace's schedules among `ids`. */
export async function findSchedules(db: Queryable, workspaceId: string, ids: readonly string[]): Promise<Schedule[]> {
  const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM schedules WHERE workspace_id = $1 AND schedule_id = ANY ($2::uuid[])`, [
    workspaceId,
    [...new Set(ids)],
  ]);
  return rows.map(fromRow);
}

/** Every schedule that sends handoff notices, of every workspace. */
export async function schedulesNotifyingHandoffs(db: Queryable): Promise<Schedule[]> {
  const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM schedules WHERE notify_handoffs ORDER BY schedule_id`);
  return rows.map(fromRow);
}

export async function listScheduleRows(db: Queryable, workspaceId: string, page: PageOrAll): Promise<Schedule[]> {
  const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM schedules WHERE workspace_id = $1 ORDER BY created_at DESC, schedule_id DESC LIMIT $2 OFFSET $3`, [
    workspaceId,
    page.limit,
    page.offset,
  ]);
  return rows.map(fromRow);
}

export async function updateScheduleRow(db: Queryable, workspaceId: string, id: string, fields: ScheduleFields): Promise<Schedule> {
  const rows = await db.query<Row>(
    `UPDATE schedules SET name = $3, timezone = $4, layers = $5::jsonb, member_ids = $6::uuid[], notify_handoffs = $7, updated_at = now()
     WHERE workspace_id = $1 AND schedule_id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, id, fields.name, fields.timezone, layersJson(fields.layers), memberIds(fields.layers), fields.notify_handoffs],
  );
  return fromRow(rows[0]!);
}

export async function replaceIcalTokenRow(db: Queryable, workspaceId: string, id: string): Promise<Schedule | null> {
  const rows = await db.query<Row>(
    `UPDATE schedules SET ical_token = $3, updated_at = now() WHERE workspace_id = $1 AND schedule_id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, id, newLinkToken()],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function deleteScheduleRow(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM schedules WHERE workspace_id = $1 AND schedule_id = $2 RETURNING schedule_id', [workspaceId, id]);
  return rows.length > 0;
}

const OVERRIDE_COLUMNS = 'override_id, schedule_id, person_id, starts_at, ends_at, created_at';

export async function insertOverride(db: Queryable, scheduleId: string, fields: OverrideFields): Promise<Override> {
  const rows = await db.query<Override>(
    `INSERT INTO schedule_overrides (override_id, schedule_id, person_id, starts_at, ends_at) VALUES ($1, $2, $3, $4, $5) RETURNING ${OVERRIDE_COLUMNS}`,
    [newId(), scheduleId, fields.person_id, fields.starts_at, fields.ends_at],
  );
  return rows[0]!;
}

/** The first override of the schedule that overlaps `span`, or null. */
export async function firstOverrideOverlapping(db: Queryable, scheduleId: string, span: TimeRange): Promise<Override | null> {
  const rows = await db.query<Override>(
    `SELECT ${OVERRIDE_COLUMNS} FROM schedule_overrides WHERE schedule_id = $1 AND ends_at > $2 AND starts_at < $3 ORDER BY starts_at LIMIT 1`,
    [scheduleId, new Date(span.from), new Date(span.to)],
  );
  return rows[0] ?? null;
}

/** An override as the shift computation reads it: instants as ms since the epoch. */
export interface OverrideSpanRow {
  readonly schedule_id: string;
  readonly person_id: string;
  readonly starts_at: number;
  readonly ends_at: number;
}

/**
 * The overrides of the schedules that overlap `span`, oldest first: only what the computation
 * reads, instants as numbers (a schedule may have thousands, and numbers decode faster than timestamps).
 */
export function overrideSpansOverlapping(db: Queryable, scheduleIds: readonly string[], span: TimeRange): Promise<OverrideSpanRow[]> {
  return db.query<OverrideSpanRow>(
    `SELECT schedule_id, person_id, (extract(epoch FROM starts_at) * 1000)::float8 AS starts_at, (extract(epoch FROM ends_at) * 1000)::float8 AS ends_at
     FROM schedule_overrides WHERE schedule_id = ANY ($1::uuid[]) AND ends_at > $2 AND starts_at < $3 ORDER BY starts_at`,
    [scheduleIds, new Date(span.from), new Date(span.to)],
  );
}

export async function countOverrides(db: Queryable, scheduleId: string): Promise<number> {
  const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM schedule_overrides WHERE schedule_id = $1', [scheduleId]);
  return rows[0]?.n ?? 0;
}

/** The schedule's overrides, newest first. */
export function listOverrideRows(db: Queryable, scheduleId: string, page: PageOrAll): Promise<Override[]> {
  return db.query<Override>(
    `SELECT ${OVERRIDE_COLUMNS} FROM schedule_overrides WHERE schedule_id = $1 ORDER BY created_at DESC, override_id DESC LIMIT $2 OFFSET $3`,
    [scheduleId, page.limit, page.offset],
  );
}

export async function findOverride(db: Queryable, scheduleId: string, overrideId: string): Promise<Override | null> {
  const rows = await db.query<Override>(`SELECT ${OVERRIDE_COLUMNS} FROM schedule_overrides WHERE schedule_id = $1 AND override_id = $2`, [
    scheduleId,
    overrideId,
  ]);
  return rows[0] ?? null;
}

export async function deleteOverrideRow(db: Queryable, scheduleId: string, overrideId: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM schedule_overrides WHERE schedule_id = $1 AND override_id = $2 RETURNING override_id', [scheduleId, overrideId]);
  return rows.length > 0;
}

/**
 * The ids among `ids` that are not schedules of the workspace. The others are locked (shared)
 * until the transaction ends, so a concurrent delete waits and then sees what names them.
 */
export async function unknownSchedules(db: Queryable, workspaceId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.query<{ schedule_id: string }>(
    'SELECT schedule_id FROM schedules WHERE workspace_id = $1 AND schedule_id = ANY ($2::uuid[]) ORDER BY schedule_id FOR SHARE',
    [workspaceId, [...new Set(ids)]],
  );
  const known = new Set(rows.map((r) => r.schedule_id));
  return new Set(ids.filter((id) => !known.has(id)));
}

/** Schedules by id whatever their workspace (the handoff worker). */
export async function findSchedulesByIds(db: Queryable, ids: readonly string[]): Promise<Schedule[]> {
  if (ids.length === 0) return [];
  const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM schedules WHERE schedule_id = ANY ($1::uuid[])`, [ids]);
  return rows.map(fromRow);
}
