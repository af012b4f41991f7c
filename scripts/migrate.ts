// npm run migrate: applies pending schema files to both stores and lists what it applied.
import { migrateClickHouse, migratePostgres } from '../src/stores/migrations.js';
import { configOrExit, withStores } from './lib/adminOrStores.js';

const config = configOrExit();
await withStores(
  config,
  async (stores) => {
    const postgres = await migratePostgres(stores.postgres);
    const clickhouse = await migrateClickHouse(stores.clickhouse);
    const report = (applied: string[]) => (applied.length > 0 ? `applied ${applied.join(', ')}` : 'up to date');
    process.stdout.write(`postgres (${stores.postgres.mode}): ${report(postgres)}\n`);
    process.stdout.write(`clickhouse (${stores.clickhouse.mode}): ${report(clickhouse)}\n`);
  },
  { migrate: false },
);
