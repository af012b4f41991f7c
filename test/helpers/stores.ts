// Real stores for tests. ClickHouse: the embedded engine binds one data path per process, so
// every suite shares it and gets a database of its own. Postgres: embedded PGlite in a folder
// of its own (copied from a template, which is much faster than a fresh initdb), or, when
// ALERTMON_TEST_POSTGRES_URL is set, a fresh database on that server.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migratePostgres } from '../../src/stores/migrations.js';
import { openPostgres, type PostgresOptions } from '../../src/stores/postgres.js';
import { openStores, embeddedPostgresDir, type OpenStoresOptions, type Stores } from '../../src/stores/index.js';

export const testRoot = mkdtempSync(path.join(os.tmpdir(), 'alertmon-test-'));
const clickhousePath = path.join(testRoot, 'clickhouse');
const serverUrl = process.env.ALERTMON_TEST_POSTGRES_URL ?? null;

export const postgresMode: 'embedded' | 'server' = serverUrl === null ? 'embedded' : 'server';

/**
 * describe for a suite in which Postgres plays no part of what it checks, but the embedded
 * stores do (the journal and a kill -9 of the process holding them, the data directory's lock,
 * ingest sharing the event loop with embedded Postgres): npm test runs it in the run on the
 * embedded stores only, and lists it as pending in the run against the Postgres server, where
 * it would check the same thing again.
 */
export function describeInEmbeddedRunOnly(title: string, suite: (this: Mocha.Suite) => void): void {
  if (postgresMode === 'embedded') describe(title, suite);
  else describe.skip(title, suite);
}

/**
 * Whether npm test runs the integration tests against a Postgres server too (scripts/test.ts
 * says so to both runs): then describeInOneRun's suites go there.
 */
const serverRunToo = process.env.ALERTMON_TEST_SERVER_RUN === '1';

/**
 * describe for a suite in which neither Postgres nor the embedded stores play a part of what it
 * checks (ClickHouse's rollups and analytics, the wire formats, the HTTP layer): npm test runs
 * it once, in the run against the Postgres server when there is one (the same test takes about
 * 0.6 of the CPU there: embedded Postgres is WebAssembly in the test's own process), else in
 * the run on the embedded stores; it is listed as pending in the other.
 */
export function describeInOneRun(title: string, suite: (this: Mocha.Suite) => void): void {
  if (postgresMode === 'server' || !serverRunToo) describe(title, suite);
  else describe.skip(title, suite);
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/**
 * The embedded Postgres's buffer pool in tests (EMBEDDED_POSTGRES_SHARED_BUFFERS_MB): a
 * quarter of the default, which every start zeroes: about 0.4 s less for every embedded store
 * a test opens, here (a service's restart 3.1-3.3 s against 3.5-3.6 s). No test's data comes near it.
 */
export const TEST_SHARED_BUFFERS_MB = 32;

let template: Promise<string> | null = null;
/** An initdb'd cluster, no migration applied: copied for an unmigrated store. */
function pgliteTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = path.join(testRoot, 'pglite-template');
    const store = await openPostgres({ mode: 'embedded', dir, sharedBuffersMb: TEST_SHARED_BUFFERS_MB });
    await store.close();
    return dir;
  })();
  return template;
}

/** Applies every migration to the database and closes it again: a template, to be copied. */
async function migrateOnce(options: PostgresOptions): Promise<void> {
  const store = await openPostgres(options);
  try {
    await migratePostgres(store);
  } finally {
    await store.close();
  }
}

let migratedTemplate: Promise<string> | null = null;
/** A copy of the template with every migration applied: copied for a fresh store, which then has none to apply. */
function migratedPgliteTemplate(): Promise<string> {
  migratedTemplate ??= (async () => {
    const dir = path.join(testRoot, 'pglite-migrated');
    cpSync(await pgliteTemplate(), dir, { recursive: true });
    await migrateOnce({ mode: 'embedded', dir, sharedBuffersMb: TEST_SHARED_BUFFERS_MB });
    return dir;
  })();
  return migratedTemplate;
}

const serverDatabases: string[] = [];

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function onServer<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl! });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A new database on the Postgres server, a copy of `template` (default: empty): its name. */
async function createServerDatabase(template?: string): Promise<string> {
  const database = uniqueName('alertmon_test');
  await onServer((c) => c.query(`CREATE DATABASE ${database}${template === undefined ? '' : ` TEMPLATE ${template}`}`));
  serverDatabases.push(database);
  return database;
}

let serverTemplate: Promise<string> | null = null;
/** A server database with every migration applied, and no session on it, so that CREATE DATABASE can copy it. */
function migratedServerTemplate(): Promise<string> {
  serverTemplate ??= (async () => {
    const database = await createServerDatabase();
    await migrateOnce({ mode: 'server', url: withDatabase(serverUrl!, database), poolMax: 1 });
    return database;
  })();
  return serverTemplate;
}

/** A new database on the Postgres server, migrated unless `unmigrated`: its URL. */
async function freshServerDatabase(unmigrated: boolean): Promise<string> {
  return withDatabase(serverUrl!, await createServerDatabase(unmigrated ? undefined : await migratedServerTemplate()));
}

/** Options for a new, empty ClickHouse database on the process's embedded engine. */
export const freshClickHouseOptions = () => ({ mode: 'embedded', path: clickhousePath, database: uniqueName('t') }) as const;

/**
 * Options for a new pair of stores, holding no data. Open them (again) with openStores. Postgres
 * is a copy of a database this process migrated once (0.35 s of CPU less for each store than
 * migrating it anew, here, of 1.1 s for the whole open); `unmigrated` leaves it without its
 * schema, for a test of the migrations themselves. ClickHouse is a database of its own, migrated
 * as it is opened.
 */
export async function freshStoreOptions({ unmigrated = false } = {}): Promise<OpenStoresOptions> {
  const clickhouse = freshClickHouseOptions();
  if (serverUrl !== null) return { clickhouse, postgres: { mode: 'server', url: await freshServerDatabase(unmigrated), poolMax: 4 } };
  const dir = path.join(testRoot, uniqueName('pglite'));
  cpSync(await (unmigrated ? pgliteTemplate() : migratedPgliteTemplate()), dir, { recursive: true });
  return { clickhouse, postgres: { mode: 'embedded', dir, sharedBuffersMb: TEST_SHARED_BUFFERS_MB } };
}

export async function openFreshStores(): Promise<{ stores: Stores; options: OpenStoresOptions }> {
  const options = await freshStoreOptions();
  return { stores: await openStores(options), options };
}

/** Drops the server databases and removes the temporary files of this test process. */
export async function removeTestStores(): Promise<void> {
  if (serverUrl !== null && serverDatabases.length > 0) {
    await onServer(async (c) => {
      for (const db of serverDatabases.splice(0)) await c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    });
  }
  rmSync(testRoot, { recursive: true, force: true });
}

/**
 * Environment for a service process of its own: DATA_DIR, and a fresh server database in
 * server mode. Postgres is migrated already, as in freshStoreOptions (in embedded mode
 * DATA_DIR's Postgres folder is a copy of the migrated template, sparing each service its initdb,
 * 4.3 of its 9.5 s first start, measured here, and its migrations); ClickHouse is migrated by the
 * service. `blank` leaves DATA_DIR empty (and the server database without its schema), for a
 * test of the very first start.
 */
export async function freshProcessEnv({ blank = false } = {}): Promise<Record<string, string>> {
  const dataDir = mkdtempSync(path.join(testRoot, 'proc-'));
  if (serverUrl !== null) return { DATA_DIR: dataDir, DATABASE_URL: await freshServerDatabase(blank) };
  if (!blank) cpSync(await migratedPgliteTemplate(), embeddedPostgresDir(dataDir), { recursive: true });
  return { DATA_DIR: dataDir, EMBEDDED_POSTGRES_SHARED_BUFFERS_MB: String(TEST_SHARED_BUFFERS_MB) };
}
