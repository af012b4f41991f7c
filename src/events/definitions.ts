// Event definitions in Postgres. Every function takes the workspace and filters by it:
// a definition of another workspace is simply not found. The rules around them (defaults,
// timezones, day re-bucketing) are in operations.ts.
import { randomBytes } from 'node:crypto';
import { conflict } from '../errors.js';
import { newId } from '../ids.js';
import type { Page } from '../page.js';
import { sqlState, UNIQUE_VIOLATION, type Queryable } from '../stores/postgres.js';

/** The agent of a definition (and a log record) that names none. */
export const DEFAULT_AGENT = 'default';

export interface EventDefinition {
  event_id: string;
  user_id: string;
  event: string;
  agent: string;
  title: string | null;
  description: string;
  unit: string;
  timezone: string;
  public: boolean;
  share_token: string;
  created_at: Date;
  updated_at: Date;
}

export interface NewEventDefinition {
  event: string;
  agent: string;
  title?: string | null;
  description?: string;
  unit?: string;
  timezone?: string;
  public?: boolean;
}

export type EventDefinitionChanges = Partial<Pick<EventDefinition, 'agent' | 'title' | 'description' | 'unit' | 'timezone' | 'public'>>;

/** Another definition of the workspace already has this (agent, event) pair. */
const eventExists = (agent: string, event: string) =>
  conflict('event_exists', `An event definition for agent "${agent}" and event "${event}" already exists.`);

const EDITABLE: readonly (keyof EventDefinitionChanges)[] = ['agent', 'title', 'description', 'unit', 'timezone', 'public'];

const COLUMNS = 'event_id, user_id, event, agent, title, description, unit, timezone, public, share_token, created_at, updated_at';

/** Random, URL-safe, 192 bits. */
function newShareToken(): string {
  return randomBytes(24).toString('base64url');
}

export async function insertEventDefinition(db: Queryable, workspaceId: string, input: NewEventDefinition): Promise<EventDefinition> {
  try {
    const rows = await db.query<EventDefinition>(
      `INSERT INTO event_definitions (event_id, user_id, event, agent, title, description, unit, timezone, public, share_token)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
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
      ],
    );
    return rows[0]!;
  } catch (err) {
    if (sqlState(err) === UNIQUE_VIOLATION) throw eventExists(input.agent, input.event);
    throw err;
  }
}

/**
 * The definition of (agent, event), created with defaults when there is none. Safe when
 * several requests or processes race for the same new pair: one row wins, all get it.
 */
export async function ensureEventDefinition(db: Queryable, workspaceId: string, agent: string, event: string): Promise<EventDefinition> {
  const inserted = await db.query<EventDefinition>(
    `INSERT INTO event_definitions (event_id, user_id, event, agent, share_token)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT ON CONSTRAINT event_definitions_pair_key DO NOTHING
     RETURNING ${COLUMNS}`,
    [newId(), workspaceId, event, agent, newShareToken()],
  );
  if (inserted[0]) return inserted[0];
  const existing = await db.query<EventDefinition>(
    `SELECT ${COLUMNS} FROM event_definitions WHERE user_id = $1 AND agent = $2 AND event = $3`,
    [workspaceId, agent, event],
  );
  if (!existing[0]) throw new Error(`event definition ${agent}/${event} vanished while being created`);
  return existing[0];
}

export async function getEventDefinition(db: Queryable, workspaceId: string, eventId: string): Promise<EventDefinition | null> {
  const rows = await db.query<EventDefinition>(`SELECT ${COLUMNS} FROM event_definitions WHERE user_id = $1 AND event_id = $2`, [
    workspaceId,
    eventId,
  ]);
  return rows[0] ?? null;
}

export async function listEventDefinitions(db: Queryable, workspaceId: string, page: Page): Promise<EventDefinition[]> {
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
