// Event definitions in Postgres. Every function takes the workspace and filters by it:
// a definition of another workspace is simply not found. The rules around them (defaults,
// timezones, day re-bucketing) are in operations.ts.
import { conflict } from '../errors.js';
import { newId } from '../ids.js';
import type { PageOrAll } from '../page.js';
import { sqlState, UNIQUE_VIOLATION, type PostgresStore, type Queryable } from '../stores/postgres.js';
import { newLinkToken } from '../linkTokens.js';
import { DefinitionLimitError, type EventDefinition, type EventDefinitionChanges, type NewEventDefinition } from './model.js';

/** Another definition of the workspace already has this (agent, event) pair. */
const eventExists = (agent: string, event: string) => conflict('event_exists', `An event definition for agent "${agent}" and event "${event}" already exists.`);

const EDITABLE: readonly (keyof EventDefinitionChanges)[] = ['agent', 'title', 'description', 'unit', 'timezone', 'public'];

const COLUMNS = 'event_id, user_id, event, agent, title, description, unit, timezone, timezone_changed_at, public, share_token, created_at, updated_at';
const QUALIFIED_COLUMNS = COLUMNS.split(', ')
  .map((column) => `d.${column}`)
  .join(', ');

/**
 * Creates a definition unless the workspace has `limit` already (DefinitionLimitError).
 * Concurrent creations may pass the limit by a few; logs create theirs under a lock
 * (ensureEventDefinitions), which bounds the bulk of them exactly.
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
        newLinkToken(),
        limit,
      ],
    );
    if (rows[0]) return rows[0];
    if ((await findPairs(db, workspaceId, [input])).size > 0) throw eventExists(input.agent, input.event);
    throw new DefinitionLimitError(limit);
  } catch (err) {
    if (sqlState(err) === UNIQUE_VIOLATION) throw eventExists(input.agent, input.event);
    throw err;
  }
}

/** An (agent, event) pair. */
export interface EventPair {
  readonly agent: string;
  readonly event: string;
}

/** What ensureEventDefinitions answers for a pair: its definition, or the limit it would pass. */
export type EnsuredDefinition = { readonly definition: EventDefinition; readonly created: boolean } | DefinitionLimitError;

/**
 * The definitions of (agent, event) pairs, created with defaults for those that have none,
 * in one read and at most one short transaction, whatever their number: an agent's first
 * batch may bring hundreds of new events. Safe when several requests or processes race for
 * the same new pair: one row wins, all get it. Answers in the order of `pairs`; pairs are
 * created in that order while the workspace is under `limit`, the others are answered with
 * DefinitionLimitError.
 */
export async function ensureEventDefinitions(db: PostgresStore, workspaceId: string, pairs: readonly EventPair[], limit: number): Promise<EnsuredDefinition[]> {
  // Answers are matched to pairs by position and id, not by name: Postgres stores text that
  // JavaScript strings cannot carry as is (a lone surrogate) in another spelling.
  const found = await findPairs(db, workspaceId, pairs);
  const missing = pairs.flatMap((_, i) => (found.has(i) ? [] : [i]));
  const created = new Set<number>();
  if (missing.length > 0) {
    await db.transaction(async (tx) => {
      // One creator per workspace at a time, in every process, so that the count below sees
      // every definition created before it and the limit holds exactly.
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`event_definitions/${workspaceId}`]);
      const ids = missing.map(() => newId());
      const inserted = await tx.query<EventDefinition>(
        `INSERT INTO event_definitions (event_id, user_id, event, agent, share_token)
         SELECT u.event_id, $2, u.event, u.agent, u.share_token
         FROM unnest($1::uuid[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS u(event_id, event, agent, share_token, ord)
         WHERE u.ord <= $6 - (SELECT count(*) FROM event_definitions WHERE user_id = $2)
         ON CONFLICT ON CONSTRAINT event_definitions_pair_key DO NOTHING
         RETURNING ${COLUMNS}`,
        [ids, workspaceId, missing.map((i) => pairs[i]!.event), missing.map((i) => pairs[i]!.agent), missing.map(() => newLinkToken()), limit],
      );
      const indexOfId = new Map(ids.map((id, k) => [id, missing[k]!]));
      for (const d of inserted) {
        const i = indexOfId.get(d.event_id)!;
        found.set(i, d);
        created.add(i);
      }
      // Created meanwhile by another process or request.
      const raced = missing.filter((i) => !found.has(i));
      if (raced.length > 0) {
        const again = await findPairs(
          tx,
          workspaceId,
          raced.map((i) => pairs[i]!),
        );
        for (const [k, d] of again) found.set(raced[k]!, d);
      }
    });
  }
  return pairs.map((_, i) => {
    const definition = found.get(i);
    return definition ? { definition, created: created.has(i) } : new DefinitionLimitError(limit);
  });
}

/** The definitions of the pairs that have one, by the pair's position. */
async function findPairs(db: Queryable, workspaceId: string, pairs: readonly EventPair[]): Promise<Map<number, EventDefinition>> {
  const rows = await db.query<EventDefinition & { pair: number }>(
    `SELECT (u.ord - 1)::int AS pair, ${QUALIFIED_COLUMNS}
     FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS u(agent, event, ord)
     JOIN event_definitions AS d ON d.user_id = $1 AND d.agent = u.agent AND d.event = u.event`,
    [workspaceId, pairs.map((p) => p.agent), pairs.map((p) => p.event)],
  );
  return new Map(rows.map(({ pair, ...definition }) => [pair, definition]));
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
    [workspaceId, eventId, newLinkToken()],
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
  // Set when the timezone becomes another (SET expressions read the row as it was).
  const timezoneAt = fields.findIndex(([name]) => name === 'timezone');
  if (timezoneAt >= 0) {
    sets.push(`timezone_changed_at = CASE WHEN timezone IS DISTINCT FROM $${timezoneAt + 3} THEN now() ELSE timezone_changed_at END`);
  }
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
