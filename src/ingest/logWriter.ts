// Stores batches of log rows in ClickHouse: drops records whose log_id was accepted in the
// last 10 minutes (or earlier in the same batch), writes the rest in one INSERT, and only
// then remembers their ids. Batches may be written concurrently; a record whose id is in
// an insert still running waits for that insert's outcome, so every id is stored once and
// an acknowledged record is always a stored one.
import { Readable } from 'node:stream';
import type { Metrics } from '../metrics.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { EventDirectory } from '../events/eventDirectory.js';
import { localDayStart } from './localDay.js';
import { DEDUP_WINDOW_MS, RecentLogIds } from './recentLogIds.js';

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

/**
 * A row waiting in the queue, serialised for the INSERT but for its day bucket: that is
 * computed when the row is written, with the event's timezone at that moment.
 */
export interface QueuedLogRow {
  readonly workspaceId: string;
  readonly eventId: string;
  readonly logId: string;
  readonly clientLogId: boolean;
  readonly occurredAt: number;
  /** The JSONCompactEachRow line up to day_start, and from after it. */
  readonly head: string;
  readonly tail: string;
}

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
function refusedForItsRows(err: unknown): boolean {
  const type = (err as { type?: unknown } | null)?.type;
  return typeof type === 'string' && (type.startsWith('CANNOT_PARSE_') || ROW_ERROR_TYPES.has(type));
}

const LOG_COLUMNS = ['workspace_id', 'event_id', 'agent', 'event', 'log_id', 'value', 'occurred_at', 'received_at', 'day_start', 'meta'];
const INSERT_LOGS = `INSERT INTO logs (${LOG_COLUMNS.join(', ')}) FORMAT JSONCompactEachRow`;

/** `receivedAt` is the request's ISO receive time, the same for all its rows. */
export function queuedRow(workspaceId: string, eventId: string, record: NewLogRecord, receivedAt: string): QueuedLogRow {
  const head = JSON.stringify([
    workspaceId,
    eventId,
    record.agent,
    record.event,
    record.logId,
    record.value,
    new Date(record.occurredAt).toISOString(),
    receivedAt,
  ]).slice(0, -1);
  const tail = `${JSON.stringify(record.meta)}]`;
  return { workspaceId, eventId, logId: record.logId, clientLogId: record.clientLogId, occurredAt: record.occurredAt, head, tail };
}

function line(row: QueuedLogRow, timezone: string): string {
  return `${row.head},${localDayStart(timezone, row.occurredAt) / 1000},${row.tail}`;
}

const idKey = (row: QueuedLogRow) => `${row.workspaceId}\u0000${row.logId}`;

export class LogWriter {
  readonly recentIds: RecentLogIds;
  /** Client ids claimed by inserts still running → that insert's outcome (true: stored). */
  private readonly inFlight = new Map<string, Promise<boolean>>();

  constructor(
    private readonly clickhouse: ClickHouseStore,
    private readonly directory: EventDirectory,
    private readonly metrics: Metrics,
    dedupMaxIds: number,
  ) {
    this.recentIds = new RecentLogIds(dedupMaxIds);
  }

  /** Remembers the ids stored in the last 10 minutes, so that idempotency survives a restart. */
  async loadRecentIds(): Promise<number> {
    // Oldest first, as they were remembered at run time, so a capped window keeps the newest.
    const result = await this.clickhouse.client.query({
      query: `SELECT workspace_id, toString(log_id) AS log_id, toUnixTimestamp64Milli(received_at) AS received_ms
              FROM logs WHERE received_at >= now64(3) - toIntervalMillisecond({window:UInt32})
              ORDER BY received_at`,
      query_params: { window: DEDUP_WINDOW_MS + 60_000 },
      format: 'JSONCompactEachRow',
    });
    let loaded = 0;
    for await (const rows of result.stream<[string, string, number]>()) {
      for (const row of rows) {
        const [workspaceId, logId, receivedMs] = row.json();
        this.recentIds.add(workspaceId, logId, receivedMs);
        loaded++;
      }
    }
    this.reportWindow();
    return loaded;
  }

  async write(batch: readonly (readonly QueuedLogRow[])[]): Promise<void> {
    let settle!: (stored: boolean) => void;
    const outcome = new Promise<boolean>((resolve) => (settle = resolve));
    let duplicates = 0;

    // Each client id has a line of claimants, the inserts that carry it, newest in inFlight.
    // A batch joins the line at once and waits only for the claimant before it, which
    // started earlier, so waits never go round in a circle.
    const claims: string[] = [];
    const kept: { row: QueuedLogRow; before?: Promise<boolean> }[] = [];
    for (const rows of batch) {
      for (const row of rows) {
        if (!row.clientLogId) {
          kept.push({ row });
          continue;
        }
        const key = idKey(row);
        const before = this.inFlight.get(key);
        if (before === outcome || this.recentIds.has(row.workspaceId, row.logId)) {
          duplicates++;
          continue;
        }
        this.inFlight.set(key, outcome);
        claims.push(key);
        kept.push(before ? { row, before } : { row });
      }
    }

    const lines: string[] = [];
    const stored: QueuedLogRow[] = [];
    for (const { row, before } of kept) {
      // Carried by an earlier insert too: ours only if that one failed and nobody stored it.
      if (before && ((await before) || this.recentIds.has(row.workspaceId, row.logId))) {
        duplicates++;
        continue;
      }
      if (row.clientLogId) stored.push(row);
      lines.push(line(row, this.directory.timezoneOf(row.eventId)));
    }

    try {
      if (lines.length > 0) await this.insert(lines);
      const acceptedAt = Date.now();
      for (const row of stored) this.recentIds.add(row.workspaceId, row.logId, acceptedAt);
      settle(true);
    } catch (err) {
      settle(false);
      throw refusedForItsRows(err) ? new RowsRefusedError(err) : err;
    } finally {
      for (const key of claims) if (this.inFlight.get(key) === outcome) this.inFlight.delete(key);
      this.reportWindow();
    }
    this.metrics.ingestedRecords.inc(lines.length);
    this.metrics.duplicateRecords.inc(duplicates);
  }

  private async insert(lines: string[]): Promise<void> {
    const stopTimer = this.metrics.clickhouseInsertSeconds.startTimer();
    const result = await this.clickhouse.client.exec({ query: INSERT_LOGS, values: Readable.from([lines.join('\n') + '\n']) });
    result.stream.resume();
    stopTimer();
    this.metrics.clickhouseInsertRows.observe(lines.length);
  }

  private reportWindow(): void {
    this.metrics.dedupWindowSeconds.set(this.recentIds.windowMs() / 1000);
    this.metrics.dedupRememberedIds.set(this.recentIds.size);
  }
}
