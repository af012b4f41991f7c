// Where the rollups are stored (schema/clickhouse/0005_one_rollup_table.sql): the one place in
// the code that names the table. One table holds the three periods, told apart by its
// `period` column (an Enum8 whose names are the Period names; compare it with a bound String),
// so that a read of several periods is one scan with one plan. Only the modules of
// src/rollups/ read or write it; the per-period names (rollup_minute, …) are analysts' views.
export const ROLLUP_TABLE = 'rollups';

/** The series rollups (schema/clickhouse/0007_series_rollups.sql): per event name, declaration version, series and bucket. */
export const SERIES_ROLLUP_TABLE = 'series_rollups';
