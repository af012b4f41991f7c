// ClickHouse's insert rows from journaled payloads (journaledBatch.ts): each line's row as the
// journal holds it (JSONCompactEachRow, up to meta), completed at insert time with the columns
// only the writer knows then (the local day in the event's timezone, the series labels and
// their declaration's version), read from the payload's bytes without decoding them.
import { localDayStart } from '../time/localDay.js';
import { sameBytes } from './journaledBatch.js';
import { SUMMARY_COLUMNS } from './recordSummary.js';

const TAB = 9;
const NEWLINE = 10;
const DIGIT_0 = 48;
const COMMA = 44;
/** `,<day_start seconds>,{},0]\n`: at most 18 bytes for instants before 2286. */
const MAX_ROW_END_BYTES = 20;

/** The columns a row gets when it is inserted, after the journal's: the local day, the series labels and their declaration's version. */
const INSERT_TIME_COLUMNS = ['day_start', 'labels', 'dims_version'];

/** The columns of every insert into logs, those computed when the row is inserted last. */
export const LOG_COLUMNS = ['workspace_id', 'event_id', 'agent', 'event', 'log_id', 'value', 'occurred_at', 'received_at', 'meta', ...INSERT_TIME_COLUMNS];

/** The columns of an insert of summary records: the summary's after meta, those computed at insert last. */
export const SUMMARY_LOG_COLUMNS = [...LOG_COLUMNS.slice(0, -INSERT_TIME_COLUMNS.length), ...SUMMARY_COLUMNS, ...INSERT_TIME_COLUMNS];

/**
 * Derives a record's series as its row is built (src/dimensions/seriesLabeller.ts): the
 * writer knows the declarations, the row holds the record's agent, name and meta.
 */
export interface SeriesLabels {
  /** Whether any record of the workspace may have labels: when not, its rows are not looked at. */
  covers(workspaceId: string): boolean;
  /** `,{labels},version` for the record, or null (no keys declared). */
  columnsOf(workspaceId: string, eventId: string, row: RowBytes): string | null;
}

/** Where a record's row lies, without its closing bracket: `bytes` from `start` to `end` (UTF-8). */
export interface RowBytes {
  readonly bytes: Buffer;
  readonly start: number;
  readonly end: number;
}

/** The label columns of a row without labels: an empty map, version 0. */
const NO_LABELS = ',{},0';
/** The most bytes a row's labels add beyond its own meta's text: 8 keys of 64 characters and their punctuation, absent from meta. */
const MAX_LABEL_KEYS_BYTES = 8 * (64 + 8) + 24;

/** Which lines an insert takes: ordinary records (LOG_COLUMNS) or summary records (SUMMARY_LOG_COLUMNS). */
export type LineKind = 'records' | 'summaries';

/**
 * The settings of an insert into logs: a block inserted again with the same token is stored
 * once in logs and in every table the materialized views write. The views' blocks are
 * already grouped by their tables' keys, and every read aggregates: the rollup tables need not
 * merge each inserted block's rows once more (optimize_on_insert), which took about 40% of a
 * series view's insert (docs/performance.md).
 */
export const logsInsertSettings = (token: string) => ({
  insert_deduplicate: 1,
  deduplicate_blocks_in_dependent_materialized_views: 1,
  insert_deduplication_token: token,
  optimize_on_insert: 0,
});

/**
 * The insert rows (JSONCompactEachRow, LOG_COLUMNS) of journaled payloads, built from their
 * bytes without decoding them: each line's row, with day_start from its event's timezone now.
 */
export function insertBody(
  payloads: readonly Buffer[],
  timezoneOf: (eventId: string) => string,
  kind: LineKind = 'records',
  series: SeriesLabels | null = null,
): Buffer {
  const out = Buffer.allocUnsafe(insertRowsBound(payloads, series));
  return out.subarray(0, writeInsertRows(payloads, timezoneOf, out, 0, kind, undefined, series));
}

/** The workspace a payload's header names. */
const workspaceOfPayload = (payload: Buffer) => payload.toString('utf8', 0, payload.indexOf(TAB));

/**
 * The most bytes the insert rows of the payloads take. A labelled row's labels are its meta's
 * values (its line holds the meta, escaped once more) and the declared keys: at most its line
 * and MAX_LABEL_KEYS_BYTES more.
 */
export function insertRowsBound(payloads: readonly Buffer[], series: SeriesLabels | null = null): number {
  let bound = 0;
  for (const payload of payloads) {
    const labelled = series?.covers(workspaceOfPayload(payload)) ?? false;
    bound += labelled ? 2 * payload.length : payload.length;
    const perLine = labelled ? MAX_ROW_END_BYTES + MAX_LABEL_KEYS_BYTES : MAX_ROW_END_BYTES;
    for (let at = payload.indexOf(NEWLINE); at >= 0; at = payload.indexOf(NEWLINE, at + 1)) bound += perLine;
  }
  return bound;
}

/**
 * Writes the insert rows of the payloads (insertBody) into `out` from `at`, which holds
 * insertRowsBound of them; returns where they end. Only lines of `kind`; the lines of the
 * other kind are counted in `skipped`.
 */
export function writeInsertRows(
  payloads: readonly Buffer[],
  timezoneOf: (eventId: string) => string,
  out: Buffer,
  at: number,
  kind: LineKind = 'records',
  skipped?: { lines: number },
  series: SeriesLabels | null = null,
): number {
  const rowEnds = new Map<number, Buffer>();
  let timezone = 'UTC';
  // Where the last event id looked up lies, so that a line of the same event skips the lookup.
  let known: { payload: Buffer; start: number; end: number } | null = null;
  let size = at;
  for (const payload of payloads) {
    const workspaceId = series === null ? '' : workspaceOfPayload(payload);
    const labelled = series?.covers(workspaceId) ?? false;
    for (let line = payload.indexOf(NEWLINE); line >= 0; ) {
      const start = line + 1;
      const next = payload.indexOf(NEWLINE, start);
      const end = next < 0 ? payload.length : next;
      const first = payload.indexOf(TAB, start);
      const second = payload.indexOf(TAB, first + 1);
      const third = payload.indexOf(TAB, second + 1);
      // A summary record's line has its summary columns after one more tab (JSON text holds none).
      const fourth = payload.indexOf(TAB, third + 1);
      const summaryAt = fourth >= 0 && fourth < end ? fourth : -1;
      if (summaryAt >= 0 !== (kind === 'summaries')) {
        if (skipped !== undefined) skipped.lines++;
        line = next;
        continue;
      }
      // Consecutive lines often share their event.
      if (known === null || !sameBytes(known.payload, known.start, known.end, payload, start, first)) {
        timezone = timezoneOf(payload.toString('latin1', start, first));
        known = { payload, start, end: first };
      }
      let occurredAt = 0;
      for (let i = first + 1; i < second; i++) occurredAt = occurredAt * 10 + (payload[i]! - DIGIT_0);
      const dayStart = localDayStart(timezone, occurredAt) / 1000;
      const labels =
        labelled && series !== null
          ? series.columnsOf(workspaceId, payload.toString('latin1', start, first), { bytes: payload, start: third + 1, end: summaryAt < 0 ? end : summaryAt })
          : null;
      let rowEnd = labels === null ? rowEnds.get(dayStart) : Buffer.from(`,${dayStart}${labels}]\n`, 'utf8');
      if (rowEnd === undefined) {
        rowEnd = Buffer.from(`,${dayStart}${NO_LABELS}]\n`, 'latin1');
        rowEnds.set(dayStart, rowEnd);
      }
      if (summaryAt < 0) size += payload.copy(out, size, third + 1, end);
      else {
        size += payload.copy(out, size, third + 1, summaryAt);
        out[size++] = COMMA;
        size += payload.copy(out, size, summaryAt + 1, end);
      }
      // A dozen bytes: a loop costs less than a call into Buffer's native code.
      for (let k = 0; k < rowEnd.length; k++) out[size + k] = rowEnd[k]!;
      size += rowEnd.length;
      line = next;
    }
  }
  return size;
}
