// What one accepted request becomes in the journal: the payload format of a journal frame (or
// a stream's message), written by the ingest path and read by the journal writers, who turn it
// into ClickHouse's insert rows (insertRows.ts). The parser thread that validates a batch serialises each record once
// (prepareBatch), as its JSONCompactEachRow row for the logs table up to the last column, with
// a blank for its event id, which the ingest path fills in (journalPayload); only day_start is
// added at insert time, from the event's timezone then. A payload is UTF-8 text: a header
// line (workspace, append time), then one line per record: event id, occurred_at (ms), the
// client's log_id or '', the row. JSON text never holds a raw tab or newline, so the fields
// split unambiguously. A record that stands for many observations (recordSummary.ts) has one
// more field after its row: its summary columns.
import { movableMemory } from '../movableMemory.js';
import { isoString } from '../time/isoString.js';
import type { FrameSummary } from './journal/recovery.js';
import { decimalText, integerText } from './numberText.js';
import { type RecordSummary, summaryColumnsText } from './recordSummary.js';
import { uuidWords } from './recentLogIds.js';

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
  /** occurred_at as the client sent it, when that is exactly its ISO text (toISOString's form): the journal line reuses it. */
  readonly occurredAtText?: string;
  /** compact JSON, or '' */
  readonly meta: string;
  /** Set when the record stands for many observations (a histogram point): `value` is their sum. */
  readonly summary?: RecordSummary;
}

/** An (agent, event) pair of a batch. */
export interface LogPair {
  readonly agent: string;
  readonly event: string;
  /** Index of the batch's first record with this pair. */
  readonly index: number;
}

/**
 * A validated batch, serialised for the journal where it was validated (a parser thread):
 * each record's journal line, with a blank where its event id goes, which only the ingest
 * path knows (it resolves the pairs). Plain data with typed arrays, so that it crosses threads
 * by transfer rather than as thousands of objects.
 */
export interface PreparedBatch {
  readonly workspaceId: string;
  readonly receivedAt: number;
  readonly records: number;
  /** Each record's line, newline first; its event id's two places hold EVENT_ID_BLANK. */
  readonly lines: Uint8Array;
  /** Where each record's line starts in `lines`, and where the last one ends (records + 1). */
  readonly lineStarts: Int32Array;
  /** Where the event id inside each record's row goes (the other place is just after the newline). */
  readonly rowEventIdAt: Int32Array;
  /** The batch's (agent, event) pairs in order of first appearance, and each record's pair. */
  readonly pairs: readonly LogPair[];
  readonly pairOf: Int32Array;
  /** Each record's log_id as the client sent it, or '' when the service made one. */
  readonly clientLogIds: readonly string[];
  /** The client log_ids as four 32-bit words each (recentLogIds.ts), zeros where there is none. */
  readonly clientLogIdWords: Int32Array;
}

/** An event id is a UUID: 36 characters, which this blank holds a place for. */
const EVENT_ID_LENGTH = 36;
const EVENT_ID_BLANK = ' '.repeat(EVENT_ID_LENGTH);

/** The batch's records as journal lines (see the top of this file), for `workspaceId`. */
export function prepareBatch(workspaceId: string, receivedAt: number, records: readonly NewLogRecord[]): PreparedBatch {
  const count = records.length;
  const received = new Date(receivedAt).toISOString();
  const rowStart = `[${JSON.stringify(workspaceId)},"`;
  const pairs: LogPair[] = [];
  /** agent → event → index of the pair. */
  const pairIndex = new Map<string, Map<string, number>>();
  /** Each pair's columns after its event id, up to the record's log_id. */
  const pairColumns: string[] = [];
  const pairOf = new Int32Array(count);
  const clientLogIds = new Array<string>(count);
  const clientLogIdWords = new Int32Array(count * 4);
  // Offsets are counted in characters while the text is built, and are bytes too when it is
  // all ASCII (by far the common case); otherwise they are converted once at the end.
  const lineStarts = new Int32Array(count + 1);
  const rowEventIdAt = new Int32Array(count);
  let text = '';
  for (let i = 0; i < count; i++) {
    const r = records[i]!;
    let events = pairIndex.get(r.agent);
    if (events === undefined) {
      events = new Map();
      pairIndex.set(r.agent, events);
    }
    let pair = events.get(r.event);
    if (pair === undefined) {
      pair = pairs.length;
      events.set(r.event, pair);
      pairs.push({ agent: r.agent, event: r.event, index: i });
      pairColumns.push(`",${JSON.stringify(r.agent)},${JSON.stringify(r.event)},"`);
    }
    pairOf[i] = pair;
    const clientLogId = r.clientLogId ? r.logId : '';
    clientLogIds[i] = clientLogId;
    if (r.clientLogId) uuidWords(r.logId, clientLogIdWords, i * 4);
    const head = `\n${EVENT_ID_BLANK}\t${integerText(r.occurredAt)}\t${clientLogId}\t${rowStart}`;
    lineStarts[i] = text.length;
    rowEventIdAt[i] = text.length + head.length;
    const occurred = r.occurredAtText ?? isoString(r.occurredAt);
    text += `${head}${EVENT_ID_BLANK}${pairColumns[pair]}${r.logId}",${decimalText(r.value)},"${occurred}","${received}",${JSON.stringify(r.meta)}`;
    if (r.summary !== undefined) text += `\t${summaryColumnsText(r.summary)}`;
  }
  lineStarts[count] = text.length;
  const size = Buffer.byteLength(text, 'utf8');
  // Its own memory (not Buffer's shared pool), so that it can be transferred.
  const bytes = Buffer.allocUnsafeSlow(size);
  bytes.write(text, 0, 'utf8');
  if (size !== text.length) toByteOffsets(text, lineStarts, rowEventIdAt);
  return {
    workspaceId,
    receivedAt,
    records: count,
    lines: bytes,
    lineStarts,
    rowEventIdAt,
    pairs,
    pairOf,
    clientLogIds,
    clientLogIdWords,
  };
}

/** Turns character offsets into `text` into UTF-8 byte offsets, in place. */
function toByteOffsets(text: string, lineStarts: Int32Array, rowEventIdAt: Int32Array): void {
  let lineBytes = 0;
  for (let i = 0; i < rowEventIdAt.length; i++) {
    const start = lineStarts[i]!;
    const next = lineStarts[i + 1]!;
    rowEventIdAt[i] = lineBytes + Buffer.byteLength(text.slice(start, rowEventIdAt[i]), 'utf8');
    lineStarts[i] = lineBytes;
    lineBytes += Buffer.byteLength(text.slice(start, next), 'utf8');
  }
  lineStarts[rowEventIdAt.length] = lineBytes;
}

/** What of a PreparedBatch is transferred rather than copied between threads. */
export const transferablesOf = (batch: PreparedBatch): ArrayBuffer[] =>
  movableMemory([batch.lines, batch.lineStarts, batch.rowEventIdAt, batch.pairOf, batch.clientLogIdWords]);

/**
 * The journal payload of the batch's records `kept` (indexes, in any order; by default every
 * record), each with its pair's event id (`eventIds`, by pair), in parts to be framed
 * together. Fills the blanks of the batch's lines in place.
 */
export function journalPayload(batch: PreparedBatch, eventIds: readonly string[], journaledAt: number, kept?: readonly number[]): Buffer[] {
  const ids = eventIds.map((id) => {
    if (id.length !== EVENT_ID_LENGTH) throw new Error(`an event id of ${id.length} characters: ${id}`);
    return Buffer.from(id, 'latin1');
  });
  const lines = Buffer.from(batch.lines.buffer, batch.lines.byteOffset, batch.lines.byteLength);
  const { lineStarts, rowEventIdAt, pairOf } = batch;
  for (let k = 0, count = kept?.length ?? batch.records; k < count; k++) {
    const i = kept === undefined ? k : kept[k]!;
    const id = ids[pairOf[i]!]!;
    lines.set(id, lineStarts[i]! + 1);
    lines.set(id, rowEventIdAt[i]!);
  }
  const header = Buffer.from(`${batch.workspaceId}\t${journaledAt}`, 'utf8');
  if (kept === undefined || kept.length === batch.records) return [header, lines];
  return [header, ...kept.map((i) => lines.subarray(lineStarts[i]!, lineStarts[i + 1]!))];
}

/** One frame's (or message's) share of a journal payload: the header, then whole lines. */
export interface PayloadPart {
  readonly parts: readonly Uint8Array[];
  readonly records: number;
}

/** A record's line is longer than a frame or message may be: the request is refused before anything is journaled. */
export class RecordTooLargeError extends Error {
  constructor(
    readonly bytes: number,
    readonly max: number,
  ) {
    super(`a record of ${bytes} bytes in the journal, beyond the ${max} bytes a journal frame may hold`);
    this.name = 'RecordTooLargeError';
  }
}

/**
 * A journal payload (journalPayload: its header, then parts of whole lines, each line starting
 * with a newline) as the payloads of several frames of at most `max` bytes each, every one the
 * header and whole lines, in order: the frames of one request. A single line beyond what a
 * frame leaves it throws RecordTooLargeError. No part is copied: each is a view of the lines.
 */
export function splitPayload(payload: readonly Uint8Array[], max: number): PayloadPart[] {
  const header = payload[0]!;
  const room = max - header.length;
  const out: PayloadPart[] = [];
  let parts: Uint8Array[] = [header];
  let size = 0;
  let records = 0;
  const emit = () => {
    if (size > 0) out.push({ parts, records });
    parts = [header];
    size = 0;
    records = 0;
  };
  for (let p = 1; p < payload.length; p++) {
    const part = payload[p]!;
    const bytes = Buffer.from(part.buffer, part.byteOffset, part.byteLength);
    for (let start = 0; start < bytes.length; ) {
      let end: number;
      if (bytes.length - start <= room - size) end = bytes.length;
      else {
        // The last line start at or before what fits: the lines before it go in this frame.
        end = bytes.lastIndexOf(NEWLINE, start + room - size);
        if (end <= start) {
          if (size > 0) {
            emit();
            continue;
          }
          const next = bytes.indexOf(NEWLINE, start + 1);
          throw new RecordTooLargeError((next < 0 ? bytes.length : next) - start, room);
        }
      }
      parts.push(bytes.subarray(start, end));
      size += end - start;
      for (let at = bytes.indexOf(NEWLINE, start); at >= 0 && at < end; at = bytes.indexOf(NEWLINE, at + 1)) records++;
      start = end;
      if (size >= room) emit();
    }
  }
  emit();
  return out;
}

/** The whole journal payload of records whose event ids are known (tools and tests; the service prepares batches in parser threads). */
export function payloadOfRecords(
  workspaceId: string,
  receivedAt: number,
  journaledAt: number,
  records: readonly NewLogRecord[],
  eventIdOf: (pair: LogPair) => string,
): Buffer {
  const batch = prepareBatch(workspaceId, receivedAt, records);
  return Buffer.concat(journalPayload(batch, batch.pairs.map(eventIdOf), journaledAt));
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

/** Whether a[aStart, aEnd) and b[bStart, bEnd) hold the same bytes: for a few dozen, a loop costs less than Buffer.compare's native call. */
export function sameBytes(a: Uint8Array, aStart: number, aEnd: number, b: Uint8Array, bStart: number, bEnd: number): boolean {
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let i = aStart, j = bStart; i < aEnd; i++, j++) if (a[i] !== b[j]) return false;
  return true;
}

/** Event ids a payload's records refer to (each line's first field). */
export function eventIdsIn(payload: Buffer, into: Set<string>): void {
  // Consecutive lines often share their event: only a line whose id differs from the one before is read.
  let previous = -1;
  let previousEnd = -1;
  for (let at = payload.indexOf(NEWLINE); at >= 0; at = payload.indexOf(NEWLINE, at + 1)) {
    const end = payload.indexOf(TAB, at + 1);
    if (previous >= 0 && sameBytes(payload, previous, previousEnd, payload, at + 1, end)) continue;
    into.add(payload.toString('latin1', at + 1, end));
    previous = at + 1;
    previousEnd = end;
  }
}
