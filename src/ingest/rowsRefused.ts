// Which insert failures are the rows' fault: the group commit splits a batch refused for
// its rows, so that only the request holding them fails (groupCommitQueue.ts).
/**
 * ClickHouse refused rows of the insert as data (a value it cannot parse). It parses the
 * whole insert into one block before writing any of it (our inserts are far below
 * min_insert_block_size_rows/bytes), so nothing was stored: a part of the batch without
 * the bad rows can be written again as a new insert.
 */
export class RowsRefusedError extends Error {
  constructor(override readonly cause: unknown) {
    super('ClickHouse refused rows of the insert');
    this.name = 'RowsRefusedError';
  }
}

const ROW_ERROR_TYPES = new Set([
  'INCORRECT_DATA',
  'TYPE_MISMATCH',
  'INCORRECT_NUMBER_OF_COLUMNS',
  'VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE',
  'TOO_LARGE_STRING_SIZE',
  'CANNOT_READ_ALL_DATA',
]);

/** True when ClickHouse's error is about the data it was sent (CANNOT_PARSE_…, INCORRECT_DATA …). */
export function refusedForItsRows(err: unknown): boolean {
  const type = (err as { type?: unknown } | null)?.type;
  return typeof type === 'string' && (type.startsWith('CANNOT_PARSE_') || ROW_ERROR_TYPES.has(type));
}
