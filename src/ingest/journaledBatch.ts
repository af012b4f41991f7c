// What one accepted request becomes in the journal, and how the journal writer turns it into
// insert rows. The request path serialises each record once, as its JSONCompactEachRow row
// for the logs table up to the last column; only day_start is added at insert time, from the
// event's timezone then. A payload is UTF-8 text: a header line (workspace, append time), then
// one line per record: event id, occurred_at (ms), the client's log_id or '', the row. JSON
// text never holds a raw tab or newline, so the fields split unambiguously.
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
 * `token` is built by the service from a journal id and offsets: safe to place in the
 * statement (SETTINGS takes no bound values). A block inserted again with the same token is
 * stored once in logs and in every table the materialized views write.
 */
export const insertLogs = (token: string) =>
  `INSERT INTO logs (${LOG_COLUMNS.join(', ')})
   SETTINGS insert_deduplicate = 1, deduplicate_blocks_in_dependent_materialized_views = 1, insert_deduplication_token = '${token}'
   FORMAT JSONCompactEachRow`;

/** The row of logs up to meta (no closing bracket): `receivedAt` is the request's ISO receive time. */
export function rowPrefix(workspaceId: string, eventId: string, r: NewLogRecord, receivedAt: string): string {
  return `[${JSON.stringify(workspaceId)},"${eventId}",${JSON.stringify(r.agent)},${JSON.stringify(r.event)},"${r.logId}",${r.value},"${new Date(r.occurredAt).toISOString()}","${receivedAt}",${JSON.stringify(r.meta)}`;
}

/** The complete insert line of a row prefix, for an event whose day starts at `dayStartMs`. */
export const insertLine = (prefix: string, dayStartMs: number) => `${prefix},${dayStartMs / 1000}]\n`;

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
    text += `\n${eventId}\t${r.occurredAt}\t${r.clientLogId ? r.logId : ''}\t[${pair},"${r.logId}",${r.value},"${new Date(r.occurredAt).toISOString()}","${received}",${JSON.stringify(r.meta)}`;
  }
  return Buffer.from(text, 'utf8');
}

export interface DecodedBatch {
  readonly workspaceId: string;
  readonly journaledAt: number;
  /** Lines of `eventId \t occurredAt \t clientLogId \t rowPrefix`. */
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

/** Event ids a batch refers to. */
export function eventIdsOf(batch: DecodedBatch, into: Set<string>): void {
  for (const line of batch.lines) into.add(line.slice(0, line.indexOf('\t')));
}

/** The insert lines of a batch, day_start from each event's timezone now. */
export function insertLinesOf(batch: DecodedBatch, timezoneOf: (eventId: string) => string): string {
  let body = '';
  for (const line of batch.lines) {
    const first = line.indexOf('\t');
    const second = line.indexOf('\t', first + 1);
    const third = line.indexOf('\t', second + 1);
    const occurredAt = Number(line.slice(first + 1, second));
    body += insertLine(line.slice(third + 1), localDayStart(timezoneOf(line.slice(0, first)), occurredAt));
  }
  return body;
}
