// People in Postgres. Every function takes the workspace and filters by it: another
// workspace's person is simply not found.
import { newId } from '../ids.js';
import type { PageOrAll } from '../page.js';
import type { Queryable } from '../stores/postgres.js';
import type { Person, PersonFields } from './model.js';

const COLUMNS = 'person_id, workspace_id, key, name, timezone, destination_ids, created_at, updated_at';

/** Locks the workspace row so that concurrent creations count each other; returns how many `table` rows it has. */
export async function lockAndCount(db: Queryable, workspaceId: string, table: 'people' | 'schedules'): Promise<number> {
  await db.query('SELECT 1 FROM workspaces WHERE user_id = $1 FOR UPDATE', [workspaceId]);
  const rows = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1`, [workspaceId]);
  return rows[0]?.n ?? 0;
}

/** The ids among `ids` that are not destinations of the workspace. */
export async function unknownDestinations(db: Queryable, workspaceId: string, ids: readonly string[]): Promise<Set<string>> {
  const rows = await db.query<{ destination_id: string }>(
    'SELECT destination_id FROM destinations WHERE workspace_id = $1 AND destination_id = ANY ($2::uuid[])',
    [workspaceId, [...new Set(ids)]],
  );
  const known = new Set(rows.map((r) => r.destination_id));
  return new Set(ids.filter((id) => !known.has(id)));
}

/**
 * The ids among `ids` that are not people of the workspace. The others are locked (shared)
 * until the transaction ends, so a concurrent delete waits and then sees what names them.
 */
export async function unknownPeople(db: Queryable, workspaceId: string, ids: readonly string[]): Promise<Set<string>> {
  const rows = await db.query<{ person_id: string }>(
    'SELECT person_id FROM people WHERE workspace_id = $1 AND person_id = ANY ($2::uuid[]) ORDER BY person_id FOR SHARE',
    [workspaceId, [...new Set(ids)]],
  );
  const known = new Set(rows.map((r) => r.person_id));
  return new Set(ids.filter((id) => !known.has(id)));
}

export async function insertPerson(db: Queryable, workspaceId: string, fields: PersonFields): Promise<Person> {
  const rows = await db.query<Person>(
    `INSERT INTO people (person_id, workspace_id, name, timezone, destination_ids) VALUES ($1, $2, $3, $4, $5::uuid[]) RETURNING ${COLUMNS}`,
    [newId(), workspaceId, fields.name, fields.timezone, fields.destination_ids],
  );
  return rows[0]!;
}

export async function findPerson(db: Queryable, workspaceId: string, id: string, forUpdate = false): Promise<Person | null> {
  const rows = await db.query<Person>(`SELECT ${COLUMNS} FROM people WHERE workspace_id = $1 AND person_id = $2${forUpdate ? ' FOR UPDATE' : ''}`, [
    workspaceId,
    id,
  ]);
  return rows[0] ?? null;
}

/** The workspace's people among `ids`. */
export function findPeople(db: Queryable, workspaceId: string, ids: readonly string[]): Promise<Person[]> {
  return db.query<Person>(`SELECT ${COLUMNS} FROM people WHERE workspace_id = $1 AND person_id = ANY ($2::uuid[])`, [workspaceId, [...new Set(ids)]]);
}

export function listPeopleRows(db: Queryable, workspaceId: string, page: PageOrAll): Promise<Person[]> {
  return db.query<Person>(`SELECT ${COLUMNS} FROM people WHERE workspace_id = $1 ORDER BY created_at DESC, person_id DESC LIMIT $2 OFFSET $3`, [
    workspaceId,
    page.limit,
    page.offset,
  ]);
}

export async function updatePersonRow(db: Queryable, workspaceId: string, id: string, fields: PersonFields): Promise<Person> {
  const rows = await db.query<Person>(
    `UPDATE people SET name = $3, timezone = $4, destination_ids = $5::uuid[], updated_at = now()
     WHERE workspace_id = $1 AND person_id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, id, fields.name, fields.timezone, fields.destination_ids],
  );
  return rows[0]!;
}

/** The schedules that name the person in a layer or in an override that has not ended at `now` (their ids, oldest first). */
export async function schedulesNaming(db: Queryable, workspaceId: string, personId: string, now: Date): Promise<string[]> {
  const rows = await db.query<{ schedule_id: string }>(
    `SELECT s.schedule_id FROM schedules s
     WHERE s.workspace_id = $1
       AND ($2::uuid = ANY (s.member_ids)
            OR EXISTS (SELECT 1 FROM schedule_overrides o WHERE o.schedule_id = s.schedule_id AND o.person_id = $2 AND o.ends_at > $3))
     ORDER BY s.created_at, s.schedule_id`,
    [workspaceId, personId, now],
  );
  return rows.map((r) => r.schedule_id);
}

export async function deletePersonRow(db: Queryable, workspaceId: string, id: string): Promise<void> {
  await db.query('DELETE FROM people WHERE workspace_id = $1 AND person_id = $2', [workspaceId, id]);
}

/** People by id whatever their workspace (the handoff worker, which works for every workspace). */
export function findPeopleOfWorkspaces(db: Queryable, ids: readonly string[]): Promise<Person[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.query<Person>(`SELECT ${COLUMNS} FROM people WHERE person_id = ANY ($1::uuid[])`, [ids]);
}
