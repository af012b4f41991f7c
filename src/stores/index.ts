// Opens both stores as configured (embedded under DATA_DIR, or servers by URL) and
// applies pending migrations. Nothing above this layer knows which mode it runs in.
import path from 'node:path';
import { usesClickHouse, type Config } from '../config.js';
import { absentClickHouse } from './absentClickHouse.js';
import { openClickHouse, type ClickHouseOptions, type ClickHouseStore } from './clickhouse.js';
import { lockDataDir, type DataDirLock } from './dataDirLock.js';
import { migrateClickHouse, migratePostgres } from './migrations.js';
import { openPostgres, type PostgresOptions, type PostgresStore } from './postgres.js';

export interface Stores {
  readonly clickhouse: ClickHouseStore;
  readonly postgres: PostgresStore;
  close(): Promise<void>;
}

export function clickHouseOptions(config: Config): ClickHouseOptions {
  const { url, user, password, database } = config.clickhouse;
  const analyst = config.analyst;
  return url === null
    ? { mode: 'embedded', path: path.join(config.dataDir, 'clickhouse'), database, analyst }
    : { mode: 'server', url, user, password, database, analyst };
}

/** Where embedded Postgres keeps its files in DATA_DIR. */
export const embeddedPostgresDir = (dataDir: string) => path.join(dataDir, 'postgres');

export function postgresOptions(config: Config): PostgresOptions {
  const { url, embeddedSharedBuffersMb } = config.postgres;
  return url === null ? { mode: 'embedded', dir: embeddedPostgresDir(config.dataDir), sharedBuffersMb: embeddedSharedBuffersMb } : { mode: 'server', url };
}

export interface OpenStoresOptions {
  readonly clickhouse: ClickHouseOptions;
  /** This process opens no ClickHouse (ROLE=ingest with JOURNAL_URL): `clickhouse` is then unused. */
  readonly withoutClickHouse?: boolean;
  readonly postgres: PostgresOptions;
  /** Set when an embedded store keeps files there: taken for the life of the stores. */
  readonly lockDir?: string;
  readonly migrate?: boolean;
}

export function storeOptions(config: Config): OpenStoresOptions {
  const clickhouse = clickHouseOptions(config);
  const postgres = postgresOptions(config);
  const withoutClickHouse = !usesClickHouse(config);
  const embedded = (clickhouse.mode === 'embedded' && !withoutClickHouse) || postgres.mode === 'embedded';
  return { clickhouse, postgres, ...(embedded ? { lockDir: config.dataDir } : {}), ...(withoutClickHouse ? { withoutClickHouse } : {}) };
}

export async function openStores(options: OpenStoresOptions): Promise<Stores> {
  const lock: DataDirLock | null = options.lockDir === undefined ? null : await lockDataDir(options.lockDir);
  const opened: { clickhouse?: ClickHouseStore; postgres?: PostgresStore } = {};
  const closeAll = async () => {
    await Promise.allSettled([opened.clickhouse?.close(), opened.postgres?.close()]);
    lock?.release();
  };
  try {
    opened.postgres = await openPostgres(options.postgres);
    opened.clickhouse = options.withoutClickHouse ? absentClickHouse(options.clickhouse.database) : await openClickHouse(options.clickhouse);
    if (options.migrate !== false) {
      await migratePostgres(opened.postgres);
      if (!options.withoutClickHouse) await migrateClickHouse(opened.clickhouse);
    }
  } catch (err) {
    await closeAll();
    throw err;
  }
  const { clickhouse, postgres } = opened;
  let closing: Promise<void> | null = null;
  return {
    clickhouse,
    postgres,
    close() {
      closing ??= closeAll();
      return closing;
    },
  };
}
