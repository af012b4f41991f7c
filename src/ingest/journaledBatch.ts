// What one accepted request becomes in the journal, and how the journal writer turns it into
// insert rows. The request path serialises each record once, as its JSONCompactEachRow row
// for the logs table up to the last column; only day_start is added at insert time, from the
// event's timezone then. A payload is UTF-8 text: a header line (workspace, append time), then
// one line per record: event id, occurred_at (ms), the client's log_id or '', the row. JSON
// text never holds a raw tab or newline, so the fields split unambiguously.
import { isoString } from '../time/isoString.js';
import { localDayStart } from '../time/localDay.js';
import type { FrameSummary } from './journal/journal.js';

/** A validated record, as the logs route hands it over. */
export interface NewLogRecord {
  readonly logId: string;
  /** False when the service generated the id: nobody can send it again. */
  readonly clientLogId: boolean;
  readonly agent: string;
  readonly event: string;
  readonly value: number;
  /** ms since the epoch */
  readonly occurredAt: number;
  /** compact JSON, or '' */
  readonly meta: string;
}

/** The columns of every insert into logs, day_start last (computed when the row is inserted). */
export const LOG_COLUMNS = ['workspace_id', 'event_id', 'agent', 'event', 'log_id', 'value', 'occurred_at', 'received_at', 'meta', 'day_start'];

/**
 * The settings of an insert into logs: a block inserted again with the same token is stored
 * once in logs and in every table the materialized views write.
 */
export const logsInsertSettings = (token: string) => ({
  insert_deduplicate: 1,
  deduplicate_blocks_in_dependent_materialized_views: 1,
  insert_deduplication_token: token,
});

export interface JournaledRecord {
  readonly eventId: string;
  readonly record: NewLogRecord;
}

export function encodeBatch(workspaceId: string, journaledAt: number, receivedAt: number, rows: readonly JournaledRecord[]): Buffer {
  const received = new Date(receivedAt).toISOString();
  const workspace = JSON.stringify(workspaceId);
  // The columns a pair's records share are serialised once per batch.
  const pairColumns = new Map<string, string>();
  let text = `${workspaceId}\t${journaledAt}`;
  for (const { eventId, record: r } of rows) {
    let pair = pairColumns.get(eventId);
    if (pair === undefined) {
      pair = `${workspace},"${eventId}",${JSON.stringify(r.agent)},${JSON.stringify(r.event)}`;
      pairColumns.set(eventId, pair);
    }
    text += `\n${eventId}\t${r.occurredAt}\t${r.clientLogId ? r.logId : ''}\t[${pair},"${r.logId}",${r.value},"${isoString(r.occurredAt)}","${received}",${JSON.stringify(r.meta)}`;
  }
  return Buffer.from(text, 'utf8');
}

export interface DecodedBatch {
  readonly workspaceId: string;
  readonly journaledAt: number;
  /** Lines of `eventId \t occurredAt \t clientLogId \t row`: the row is the logs table's JSON array up to meta. */
  readonly lines: readonly string[];
}

export function decodeBatch(payload: Buffer): DecodedBatch {
  const lines = payload.toString('utf8').split('\n');
  const [workspaceId, journaledAt] = lines[0]!.split('\t');
  return { workspaceId: workspaceId!, journaledAt: Number(journaledAt), lines: lines.slice(1) };
}

export function summariseBatch(payload: Buffer): FrameSummary {
  const header = payload.subarray(0, payload.indexOf(10) < 0 ? payload.length : payload.indexOf(10)).toString('utf8');
  let records = 0;
  for (let at = payload.indexOf(10); at >= 0; at = payload.indexOf(10, at + 1)) records++;
  return { records, journaledAt: Number(header.split('\t')[1]) };
}

/** The client log_ids of a journaled batch, for the idempotency window after a restart. */
export function clientLogIds(batch: DecodedBatch): string[] {
  const ids: string[] = [];
  for (const line of batch.lines) {
    const first = line.indexOf('\t');
    const second = line.indexOf('\t', first + 1);
    const third = line.indexOf('\t', second + 1);
    if (third > second + 1) ids.push(line.slice(second + 1, third));
  }
  return ids;
}

/** A decoded batch as a payload again (decodeBatch's inverse). */
export function payloadOf(batch: DecodedBatch): Buffer {
  return Buffer.from([`${batch.workspaceId}\t${batch.journaledAt}`, ...batch.lines].join('\n'), 'utf8');
}

const TAB = 9;
const NEWLINE = 10;
const DIGIT_0 = 48;
/** `,<day_start seconds>]\n`: at most 13 bytes for instants before 2286. */
const MAX_ROW_END_BYTES = 16;

/** Event ids a payload's records refer to (each line's first field). */
export function eventIdsIn(payload: Buffer, into: Set<string>): void {
  for (let at = payload.indexOf(NEWLINE); at >= 0; at = payload.indexOf(NEWLINE, at + 1)) {
    into.add(payload.toString('latin1', at + 1, payload.indexOf(TAB, at + 1)));
  }
}

/**
 * The insert rows (JSONCompactEachRow, LOG_COLUMNS) of journaled payloads, built from their
 * bytes without decoding them: each line's row, with day_start from its event's timezone now.
 */
export function insertBody(payloads: readonly Buffer[], timezoneOf: (eventId: string) => string): Buffer {
  let bound = 0;
  for (const payload of payloads) {
    bound += payload.length;
    for (let at = payload.indexOf(NEWLINE); at >= 0; at = payload.indexOf(NEWLINE, at + 1)) bound += MAX_ROW_END_BYTES;
  }
  const out = Buffer.allocUnsafe(bound);
  const rowEnds = new Map<number, string>();
  let timezone = 'UTC';
  // Where the last event id looked up lies, so that a line of the same event skips the lookup.
  let known: { payload: Buffer; start: number; end: number } | null = null;
  let size = 0;
  for (const payload of payloads) {
    for (let at = payload.indexOf(NEWLINE); at >= 0; ) {
      const start = at + 1;
      const next = payload.indexOf(NEWLINE, start);
      const end = next < 0 ? payload.length : next;
      const first = payload.indexOf(TAB, start);
      const second = payload.indexOf(TAB, first + 1);
      const third = payload.indexOf(TAB, second + 1);
      // Consecutive lines often share their event.
      if (known === null || payload.compare(known.payload, known.start, known.end, start, first) !== 0) {
        timezone = timezoneOf(payload.toString('latin1', start, first));
        known = { payload, start, end: first };
      }
      let occurredAt = 0;
      for (let i = first + 1; i < second; i++) occurredAt = occurredAt * 10 + (payload[i]! - DIGIT_0);
      const dayStart = localDayStart(timezone, occurredAt) / 1000;
      let rowEnd = rowEnds.get(dayStart);
      if (rowEnd === undefined) {
        rowEnd = `,${dayStart}]\n`;
        rowEnds.set(dayStart, rowEnd);
      }
      size += payload.copy(out, size, third + 1, end);
      size += out.write(rowEnd, size, 'latin1');
      at = next;
    }
  }
  return out.subarray(0, size);
}
