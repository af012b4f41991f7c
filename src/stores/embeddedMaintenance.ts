// Maintenance of the embedded Postgres, which a server's autovacuum does itself: PGlite is
// one session with no autovacuum daemon and no activity counters.
//
// Planner statistics. Nothing else ever runs ANALYZE: every table keeps reltuples = -1 and no
// column statistics, and the planner guesses. Its guesses were costly where it matters: a
// probe for held notifications (`held_since IS NOT NULL`, a partial index) read all of
// alert_notifications (8.5 ms at 5,000 rows instead of 0.2), and marking delivered alerts
// hash-joined the whole alerts table (35 ms for 32 rows instead of 1.7): measured in the
// delivery benchmark's store. So the store runs ANALYZE itself: looked at every few seconds,
// each table that has grown by a fifth (and eight pages) since its last ANALYZE, and every
// table every ten minutes for what changed in place, the first time ten minutes after it opens
// (the statistics persist: a restart does not hold the service for a pass over every table).
//
// Dead rows. Nothing else ever runs VACUUM either, so the space of a row updated or deleted
// was never given back: a delivered notification left its old version behind for good (the
// outbox of bench:delivery's 10,000 notifications, delivered three times over on one store:
// 42.5 MiB without VACUUM, 28.4 MiB with one after each round). So the store runs VACUUM with
// its ANALYZE: a table that grew by a fifth is vacuumed and analysed, which lets the space
// its dead rows held be used again, and every table every ten minutes.
//
// Freezing. No VACUUM also meant that no row is ever frozen, and PGlite runs
// Postgres in single-user mode, where passing the wraparound limit only warns: some 2 billion
// transactions after a row was written it would seem written in the future and vanish from
// every read. So when the database's oldest unfrozen transaction is FREEZE_AGE old (the
// server's autovacuum_freeze_max_age), the store freezes every table, the catalogs included,
// with VACUUM (FREEZE) (108 ms for the 140 MB of bench:evaluate's 100,000 policies after two
// cycles); at a sustained 1,000 write transactions a second that is every two to three days.
//
// A look is two catalog queries. VACUUM and ANALYZE hold the one connection while they run,
// and PGlite runs a statement on the main thread, so the whole service waits for it: each
// table has a statement of its own, and the event loop turns between two. One statement for
// every table held the service for the sum of them; one a table, for the largest. On a store
// of 1.6 GB (1 million alerts, notifications and ack tokens, 2 million delivery attempts) the
// longest wait of a query issued every 5 ms during the ten-minute look fell from 1.9-2.2 to
// 0.6-0.8 s, during a freeze from 2.4-4.3 to 0.7-0.8 s. And the next look waits at least 100
// times as long as the last run's statements took (the pauses between them not counted).
import type { Queryable } from './queryable.js';

const LOOK_INTERVAL_MS = 5_000;
/** Transactions since the database's oldest unfrozen one that call for a freeze (autovacuum_freeze_max_age's default). */
export const FREEZE_AGE = 200_000_000;
const EVERYTHING_INTERVAL_MS = 10 * 60_000;
/** The wait is at least this many times the last run's duration. */
const DURATION_FACTOR = 100;
/** The pause between two tables' statements, in which the service's own work runs. */
const BETWEEN_TABLES_MS = 20;

/**
 * The service's tables (not the system catalogs: ANALYZE of those alone takes 200 ms), all of
 * them or those whose size on disk has outgrown what their last VACUUM and ANALYZE saw (relpages).
 */
const tables = (grownOnly: boolean) => `
  SELECT quote_ident(c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public' AND c.relkind = 'r'
    ${grownOnly ? `AND pg_relation_size(c.oid) / current_setting('block_size')::int >= greatest(c.relpages * 1.2, c.relpages + 8)` : ''}`;

/** Every table of the database, the system catalogs included, as VACUUM names it. */
const ALL_TABLES = "SELECT c.oid::regclass::text AS name FROM pg_class c WHERE c.relkind IN ('r', 'm')";

export interface Maintenance {
  stop(): Promise<void>;
}

export function maintainEmbedded(db: Queryable, onError: (err: unknown) => void, options: { freezeAge?: number } = {}): Maintenance {
  const freezeAge = options.freezeAge ?? FREEZE_AGE;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;
  let everythingAt = Date.now();
  /** How long the current run's statements have taken: the pauses between them are not counted. */
  let held = 0;

  const query = async <T extends object>(sql: string): Promise<T[]> => {
    const started = performance.now();
    try {
      return await db.query<T>(sql);
    } finally {
      held += performance.now() - started;
    }
  };
  /** Runs `VACUUM (options) <table>` on each table, a statement each, the event loop turning between two; stops early once stopped. */
  const vacuumEach = async (options: string, names: readonly { name: string }[]) => {
    for (const [i, { name }] of names.entries()) {
      if (stopped) return;
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, BETWEEN_TABLES_MS));
      await query(`VACUUM (${options}) ${name}`);
    }
  };
  const analyze = async () => {
    const everything = Date.now() - everythingAt >= EVERYTHING_INTERVAL_MS;
    if (everything) everythingAt = Date.now();
    await vacuumEach('ANALYZE', await query<{ name: string }>(tables(!everything)));
  };
  const freezeWhenDue = async () => {
    const [row] = await query<{ age: string }>('SELECT age(datfrozenxid)::int8 AS age FROM pg_database WHERE datname = current_database()');
    if (Number(row!.age) >= freezeAge) await vacuumEach('FREEZE', await query<{ name: string }>(ALL_TABLES));
  };
  const run = async () => {
    held = 0;
    try {
      await analyze();
      await freezeWhenDue();
    } catch (err) {
      if (!stopped) onError(err);
    }
    schedule(Math.max(LOOK_INTERVAL_MS, held * DURATION_FACTOR));
  };
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      running = run();
    }, ms);
    timer.unref();
  };

  // The first look a few seconds after the store opens, not while the service starts and
  // migrates on the one connection: a statement's time counts its wait for it.
  schedule(LOOK_INTERVAL_MS);
  return {
    async stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      await running;
    },
  };
}
