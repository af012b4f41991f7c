// Numbered SQL files under schema/<engine>/, applied in order, each recorded once in
// schema_migrations. Every statement is idempotent (IF NOT EXISTS), so a file interrupted
// half-way is simply applied again.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { schemaDir } from '../paths.js';
import type { ClickHouseStore } from './clickhouse.js';
import type { PostgresStore } from './postgres.js';

export interface MigrationFile {
  /** The leading number, e.g. "0001". */
  readonly version: string;
  readonly name: string;
  readonly sql: string;
}

const FILE_PATTERN = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export async function readMigrations(engine: 'clickhouse' | 'postgres'): Promise<MigrationFile[]> {
  const dir = schemaDir(engine);
  const names = (await readdir(dir)).filter((n) => n.endsWith('.sql')).sort();
  const files: MigrationFile[] = [];
  for (const name of names) {
    const match = FILE_PATTERN.exec(name);
    if (!match) throw new Error(`schema/${engine}/${name}: migration files are named NNNN_snake_case.sql`);
    const [, version, label] = match as unknown as [string, string, string];
    if (files.some((f) => f.version === version)) throw new Error(`schema/${engine}: two migrations numbered ${version}`);
    files.push({ version, name: label, sql: await readFile(path.join(dir, name), 'utf8') });
  }
  return files;
}

/** Splits a file into statements at semicolons that end a line; `--` comment lines are dropped. */
export function splitStatements(sql: string): string[] {
  return sql
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n')
    .split(/;[ \t]*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

// Any constant shared by all alertmon processes; serialises concurrent start-ups.
const POSTGRES_MIGRATION_LOCK = 726_104_331;

/**
 * Applies pending Postgres migrations in one transaction; returns the versions applied.
 * `through` stops after that version (tests build the schema an older release left).
 */
export async function migratePostgres(pg: PostgresStore, through?: string): Promise<string[]> {
  const files = (await readMigrations('postgres')).filter((f) => through === undefined || f.version <= through);
  return pg.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [POSTGRES_MIGRATION_LOCK]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const done = new Set((await tx.query<{ version: string }>('SELECT version FROM schema_migrations')).map((r) => r.version));
    const applied: string[] = [];
    for (const file of files.filter((f) => !done.has(f.version))) {
      for (const statement of splitStatements(file.sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [file.version, file.name]);
      applied.push(file.version);
    }
    return applied;
  });
}

/**
 * Applies pending ClickHouse migrations statement by statement; returns the versions applied.
 * `through` stops after that version (tests build the schema an older release left).
 */
export async function migrateClickHouse(ch: ClickHouseStore, through?: string): Promise<string[]> {
  const files = (await readMigrations('clickhouse')).filter((f) => through === undefined || f.version <= through);
  // ReplacingMergeTree: two processes migrating at once may both record a version; the
  // duplicate collapses, and FINAL reads it once.
  await ch.client.command({
    query: `CREATE TABLE IF NOT EXISTS schema_migrations (
      version String,
      name String,
      applied_at DateTime64(3, 'UTC') DEFAULT now64(3)
    ) ENGINE = ReplacingMergeTree ORDER BY version`,
  });
  const result = await ch.client.query({ query: 'SELECT version FROM schema_migrations FINAL', format: 'JSONEachRow' });
  const done = new Set((await result.json<{ version: string }>()).map((r) => r.version));
  const applied: string[] = [];
  for (const file of files.filter((f) => !done.has(f.version))) {
    for (const statement of splitStatements(file.sql)) await ch.client.command({ query: statement });
    await ch.client.insert({
      table: 'schema_migrations',
      values: [{ version: file.version, name: file.name }],
      format: 'JSONEachRow',
    });
    applied.push(file.version);
  }
  return applied;
}
