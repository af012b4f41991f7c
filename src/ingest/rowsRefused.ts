// Which insert failures are the rows' fault: the journal writer splits a block refused for
// its rows, down to the request (frame) holding them, which it sets aside (journalWriter.ts).
// ClickHouse parses a whole insert into one block before writing any of it (our blocks are
// far below min_insert_block_size_rows/bytes), so an insert refused for its rows stored
// nothing: a part of it without the bad rows can be inserted again.
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
