// Where the rollups are stored (schema/clickhouse/0002_rollups.sql): the one place in the
// code that names the tables. Only the modules of src/rollups/ read or write them.
import type { Period } from './model.js';

export const ROLLUP_TABLES: Readonly<Record<Period, string>> = { minute: 'rollup_minute', hour: 'rollup_hour', day: 'rollup_day' };
