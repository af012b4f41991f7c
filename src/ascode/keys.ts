// Keys (docs/as-code.md): the stable, human name by which an alerting-as-code document names an
// object and other objects refer to it. Optional on every kind, unique per workspace and
// kind (a unique index each, schema/postgres/0060_resource_keys.sql): a duplicate is 409
// key_taken, whoever wrote first.
import { conflict } from '../errors.js';
import { sqlState, UNIQUE_VIOLATION, type PostgresStore, type Queryable } from '../stores/postgres.js';

/** 1–64 characters of a-z, 0-9, _ and -. */
export const KEY_PATTERN = '^[a-z0-9_-]{1,64}$';
export const KEY_MAX_LENGTH = 64;

/** The kinds of object that have a key, as a document names them, with their table. */
export const KEYED_KINDS = {
  destinations: { table: 'destinations', id: 'destination_id', label: 'destination' },
  people: { table: 'people', id: 'person_id', label: 'person' },
  schedules: { table: 'schedules', id: 'schedule_id', label: 'schedule' },
  escalation_policies: { table: 'escalation_policies', id: 'escalation_policy_id', label: 'escalation policy' },
  alert_sources: { table: 'alert_sources', id: 'alert_source_id', label: 'alert source' },
  policies: { table: 'policies', id: 'policy_id', label: 'policy' },
  silences: { table: 'silences', id: 'silence_id', label: 'silence' },
} as const;

export type KeyedKind = keyof typeof KEYED_KINDS;

export const keyTaken = (kind: KeyedKind, key: string) =>
  conflict('key_taken', `Another ${KEYED_KINDS[kind].label} of the workspace has the key "${key}"; keys are unique per workspace and kind.`);

/**
 * Sets (or, with null, clears) an object's key; 409 key_taken when another object of the
 * kind in the workspace has it. The statement fails inside the caller's transaction, which
 * then rolls back whole: the object is not created or changed without its key.
 */
export async function setKey(db: Queryable, kind: KeyedKind, workspaceId: string, id: string, key: string | null): Promise<void> {
  const { table, id: idColumn } = KEYED_KINDS[kind];
  try {
    await db.query(`UPDATE ${table} SET key = $3 WHERE workspace_id = $1 AND ${idColumn} = $2`, [workspaceId, id, key]);
  } catch (err) {
    if (sqlState(err) === UNIQUE_VIOLATION && key !== null) throw keyTaken(kind, key);
    throw err;
  }
}

/** Whether another object of the kind (not `exceptId`) already has the key: checked first, so that a conflict changes nothing. */
export async function keyInUse(db: Queryable, kind: KeyedKind, workspaceId: string, key: string, exceptId: string | null): Promise<boolean> {
  const { table, id: idColumn } = KEYED_KINDS[kind];
  const rows = await db.query(`SELECT 1 FROM ${table} WHERE workspace_id = $1 AND key = $2 AND ($3::uuid IS NULL OR ${idColumn} <> $3::uuid) LIMIT 1`, [
    workspaceId,
    key,
    exceptId,
  ]);
  return rows.length > 0;
}

/**
 * The store as seen from inside an open transaction: a `transaction` of it runs in that one
 * (no nested BEGIN), so operations that open their own transaction can be composed into one
 * that commits or rolls back whole (a write with its key, an apply of a whole document).
 */
export function within(tx: Queryable, outer: PostgresStore): PostgresStore {
  return {
    mode: outer.mode,
    query: (sql, params) => tx.query(sql, params),
    transaction: (fn) => fn(tx),
    ping: () => outer.ping(),
    listen: (channel, onPayload, onError) => outer.listen(channel, onPayload, onError),
    close: () => Promise.reject(new Error('a store inside a transaction is not closed by its user')),
  };
}

/**
 * Runs a write of one object and then sets its key, in one transaction: `write` gets a store
 * whose transactions are this one. `key` undefined leaves the key as it is.
 */
export async function writeWithKey<T extends { key: string | null }>(
  db: PostgresStore,
  kind: KeyedKind,
  workspaceId: string,
  key: string | null | undefined,
  write: (db: PostgresStore) => Promise<T>,
): Promise<T> {
  if (key === undefined) return write(db);
  return db.transaction(async (tx) => {
    const written = await write(within(tx, db));
    const id = (written as unknown as Record<string, unknown>)[KEYED_KINDS[kind].id];
    if (written.key !== key) await setKey(tx, kind, workspaceId, String(id), key);
    return { ...written, key };
  });
}
