// Event definitions in Postgres. Every function takes the workspace and filters by it:
// a definition of another workspace is simply not found. The rules around them (defaults,
// timezones, day re-bucketing) are in operations.ts.
import { conflict } from '../errors.js';
import { newId } from '../ids.js';
import type { PageOrAll } from '../page.js';
import { sqlState, UNIQUE_VIOLATION, type PostgresStore, type Queryable } from '../stores/postgres.js';
import { newShareToken } from './shareToken.js';
import { DefinitionLimitError, type EventDefinition, type EventDefinitionChanges, type NewEventDefinition } from './model.js';

/** Another definition of the workspace already has this (agent, event) pair. */
const eventExists = (agent: string, event: string) => conflict('event_exists', `An event definition for agent "${agent}" and event "${event}" already exists.`);

const EDITABLE: readonly (keyof EventDefinitionChanges)[] = ['agent', 'title', 'description', 'unit', 'timezone', 'public'];

const COLUMNS = 'event_id, user_id, event, agent, title, description, unit, timezone, public, share_token, created_at, updated_at';

/**
 * Creates a definition unless the workspace has `limit` already (DefinitionLimitError).
 * Concurrent creations may pass the limit by a few; logs create theirs under a lock
 * (ensureEventDefinition), which bounds the bulk of them exactly.
 */
export async function insertEventDefinition(db: Queryable, workspaceId: string, input: NewEventDefinition, limit: number): Promise<EventDefinition> {
  try {
    const rows = await db.query<EventDefinition>(
      `INSERT INTO event_definitions (event_id, user_id, event, agent, title, description, unit, timezone, public, share_token)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10
       WHERE (SELECT count(*) FROM event_definitions WHERE user_id = $2) < $11
       RETURNING ${COLUMNS}`,
      [
        newId(),
        workspaceId,
        input.event,
        input.agent,
        input.title ?? null,
        input.description ?? '',
        input.unit ?? '',
        input.timezone ?? 'UTC',
        input.public ?? false,
        newShareToken(),
        limit,
      ],
    );
    if (rows[0]) return rows[0];
    if (await findPair(db, workspaceId, input.agent, input.event)) throw eventExists(input.agent, input.event);
    throw new DefinitionLimitError(limit);
  } catch (err) {
    if (sqlState(err) === UNIQUE_VIOLATION) throw eventExists(input.agent, input.event);
    throw err;
  }
}

/**
 * The definition of (agent, event), created with defaults when there is none and the
 * workspace has fewer than `limit` definitions (else DefinitionLimitError). Safe when several
 * requests or processes race for the same new pair: one row wins, all get it.
 */
export async function ensureEventDefinition(
  db: PostgresStore,
  workspaceId: string,
  agent: string,
  event: string,
  limit: number,
): Promise<{ definition: EventDefinition; created: boolean }> {
  const existing = await findPair(db, workspaceId, agent, event);
  if (existing) return { definition: existing, created: false };
  return db.transaction(async (tx) => {
    // One creator per workspace at a time, in every process, so that the count below sees
    // every definition created before it and the limit holds exactly.
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`event_definitions/${workspaceId}`]);
    const inserted = await tx.query<EventDefinition>(
      `INSERT INTO event_definitions (event_id, user_id, event, agent, share_token)
       SELECT $1, $2, $3, $4, $5
       WHERE (SELECT count(*) FROM event_definitions WHERE user_id = $2) < $6
       ON CONFLICT ON CONSTRAINT event_definitions_pair_key DO NOTHING
       RETURNING ${COLUMNS}`,
      [newId(), workspaceId, event, agent, newShareToken(), limit],
    );
    if (inserted[0]) return { definition: inserted[0], created: true };
    const created = await findPair(tx, workspaceId, agent, event);
    if (created) return { definition: created, created: false };
    throw new DefinitionLimitError(limit);
  });
}

async function findPair(db: Queryable, workspaceId: string, agent: string, event: string): Promise<EventDefinition | null> {
  const rows = await db.query<EventDefinition>(`SELECT ${COLUMNS} FROM event_definitions WHERE user_id = $1 AND agent = $2 AND event = $3`, [
    workspaceId,
    agent,
    event,
  ]);
  return rows[0] ?? null;
}

/** Deletes a definition (the ingest path withdraws one it created for a refused batch). */
/** The timezones of the given events that exist. */
export async function eventTimezones(db: Queryable, eventIds: readonly string[]): Promise<{ event_id: string; timezone: string }[]> {
  return db.query<{ event_id: string; timezone: string }>('SELECT event_id, timezone FROM event_definitions WHERE event_id = ANY($1::uuid[])', [eventIds]);
}

export async function deleteEventDefinition(db: Queryable, workspaceId: string, eventId: string): Promise<void> {
  await db.query('DELETE FROM event_definitions WHERE user_id = $1 AND event_id = $2', [workspaceId, eventId]);
}

export async function getEventDefinition(db: Queryable, workspaceId: string, eventId: string): Promise<EventDefinition | null> {
  const rows = await db.query<EventDefinition>(`SELECT ${COLUMNS} FROM event_definitions WHERE user_id = $1 AND event_id = $2`, [workspaceId, eventId]);
  return rows[0] ?? null;
}

/**
 * A definition found by its id alone, whatever its workspace: only for share links, which
 * carry no workspace and are checked against the definition's share token.
 */
export async function findSharedEventDefinition(db: Queryable, eventId: string): Promise<EventDefinition | null> {
  const rows = await db.query<EventDefinition>(`SELECT ${COLUMNS} FROM event_definitions WHERE event_id = $1`, [eventId]);
  return rows[0] ?? null;
}

/** Gives the definition a new share token; null when it is not the workspace's. */
export async function writeNewShareToken(db: Queryable, workspaceId: string, eventId: string): Promise<EventDefinition | null> {
  const rows = await db.query<EventDefinition>(
    `UPDATE event_definitions SET share_token = $3, updated_at = now() WHERE user_id = $1 AND event_id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, eventId, newShareToken()],
  );
  return rows[0] ?? null;
}

export async function listEventDefinitionRows(db: Queryable, workspaceId: string, page: PageOrAll): Promise<EventDefinition[]> {
  return db.query<EventDefinition>(
    `SELECT ${COLUMNS} FROM event_definitions WHERE user_id = $1
     ORDER BY created_at DESC, event_id DESC LIMIT $2 OFFSET $3`,
    [workspaceId, page.limit, page.offset],
  );
}

/** Applies the given changes to `current`; returns the updated definition, null when it is gone. */
export async function writeEventDefinitionChanges(
  db: Queryable,
  workspaceId: string,
  current: EventDefinition,
  changes: EventDefinitionChanges,
): Promise<EventDefinition | null> {
  const fields = EDITABLE.filter((name) => changes[name] !== undefined).map((name) => [name, changes[name]] as const);
  const sets = fields.map(([name], i) => `${name} = $${i + 3}`);
  try {
    const rows = await db.query<EventDefinition>(
      `UPDATE event_definitions SET ${[...sets, 'updated_at = now()'].join(', ')}
       WHERE user_id = $1 AND event_id = $2 RETURNING ${COLUMNS}`,
      [workspaceId, current.event_id, ...fields.map(([, v]) => v)],
    );
    return rows[0] ?? null;
  } catch (err) {
    if (sqlState(err) === UNIQUE_VIOLATION) throw eventExists(changes.agent ?? current.agent, current.event);
    throw err;
  }
}
