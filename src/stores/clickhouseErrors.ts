// ClickHouse's errors, classified in one place. Both modes surface them as @clickhouse/client's
// ClickHouseError: a server's answer parsed by the client, chDB's message ("Code: 241.
// DB::Exception: … (MEMORY_LIMIT_EXCEEDED)") parsed the same way (clickhouse.ts); its `type`
// names the exception. An error that carries no type is parsed from its message here.
import { parseError } from '@clickhouse/client';

export type ClickHouseErrorClass =
  /** The rows sent could not be stored (CANNOT_PARSE_…, INCORRECT_DATA …): the same rows always fail. */
  | 'rows_refused'
  /** The query went past its memory limit (max_memory_usage). */
  | 'memory_limit'
  /** The query went past its time limit (max_execution_time). */
  | 'timeout'
  | 'other';

// ClickHouse parses a whole insert into one block before writing any of it (our blocks are
// far below min_insert_block_size_rows/bytes), so an insert refused for its rows stored
// nothing: a part of it without the bad rows can be inserted again (journalWriter.ts).
const ROW_ERROR_TYPES = new Set([
  'INCORRECT_DATA',
  'TYPE_MISMATCH',
  'INCORRECT_NUMBER_OF_COLUMNS',
  'VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE',
  'TOO_LARGE_STRING_SIZE',
  'CANNOT_READ_ALL_DATA',
]);

/** The exception's type (e.g. TIMEOUT_EXCEEDED), or null when the error names none. */
export function clickHouseErrorType(err: unknown): string | null {
  const type = (err as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && type !== '') return type;
  const message = err instanceof Error ? err.message : typeof err === 'string' ? err : null;
  if (message === null) return null;
  const parsed = (parseError(message) as { type?: unknown }).type;
  return typeof parsed === 'string' && parsed !== '' ? parsed : null;
}

export function classifyClickHouseError(err: unknown): ClickHouseErrorClass {
  const type = clickHouseErrorType(err);
  if (type === null) return 'other';
  if (type.startsWith('CANNOT_PARSE_') || ROW_ERROR_TYPES.has(type)) return 'rows_refused';
  if (type === 'MEMORY_LIMIT_EXCEEDED') return 'memory_limit';
  if (type === 'TIMEOUT_EXCEEDED') return 'timeout';
  return 'other';
}
