// Stores batches of log rows in ClickHouse: drops records whose log_id was accepted in the
// last 10 minutes (or earlier in the same batch), writes the rest in one INSERT, and only
// then remembers their ids. Batches may be written concurrently; a record whose id is in
// an insert still running waits for that insert's outcome, so every id is stored once and
// an acknowledged record is always a stored one.
//
// One INSERT writes the raw table and three materialized views, and a failure part-way
// (cancelled, timed out, out of memory) may leave some of them written. So every insert
// carries an insert_deduplication_token, and a failed one is sent again, identical and
// with the same token: ClickHouse then skips the tables that already hold the block and
// writes the others (tables keep recent block ids: migration 0004). An insert that still
// fails after INSERT_ATTEMPTS is "unsettled": its requests get 503, but its ids stay
// claimed by it, and it is completed the same way before anything else is written. A
// client's retry of those records then finds them stored, and no record is counted twice.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { EventDirectory } from '../events/eventDirectory.js';
import { localDayStart } from '../time/localDay.js';
import { refusedForItsRows, RowsRefusedError } from './rowsRefused.js';
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

const LOG_COLUMNS = ['workspace_id', 'event_id', 'agent', 'event', 'log_id', 'value', 'occurred_at', 'received_at', 'day_start', 'meta'];

/** `token` is a UUID we generated: safe to place in the statement (SETTINGS takes no bound values). */
export const insertLogs = (token: string) =>
  `INSERT INTO logs (${LOG_COLUMNS.join(', ')})
   SETTINGS insert_deduplicate = 1, deduplicate_blocks_in_dependent_materialized_views = 1, insert_deduplication_token = '${token}'
   FORMAT JSONCompactEachRow`;

/** Tries of one insert while its requests wait, and the pauses between them. */
export const INSERT_ATTEMPTS = 3;
const RETRY_PAUSES_MS = [100, 400];
/** An unsettled insert is given up after this long (its ids are no longer recognised anyway). */
const UNSETTLED_GIVE_UP_MS = DEDUP_WINDOW_MS;
/** Unsettled inserts are also completed in the background, without waiting for traffic. */
const COMPLETION_INTERVAL_MS = 1_000;

/** An insert that failed after every attempt: it may be partly stored. */
interface Unsettled {
  readonly token: string;
  readonly body: string;
  readonly rows: number;
  readonly failedAt: number;
  /** Settles the claims of its ids: true once it is stored. */
  readonly settle: (stored: boolean) => void;
  readonly stored: readonly QueuedLogRow[];
  readonly claims: readonly string[];
  readonly outcome: Promise<boolean>;
  completing: Promise<void> | null;
}

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
  /** Client ids claimed by inserts still running or unsettled → that insert's outcome (true: stored). */
  private readonly inFlight = new Map<string, Promise<boolean>>();
  /** Failed inserts to complete before the next one, oldest first. */
  private readonly unsettled: Unsettled[] = [];
  private completionTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly clickhouse: ClickHouseStore,
    private readonly directory: EventDirectory,
    private readonly metrics: Metrics,
    dedupMaxIds: number,
    private readonly logger: Logger,
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

  /** Rows of unsettled inserts, held in memory until they are completed. */
  get unsettledRows(): number {
    return this.unsettled.reduce((n, u) => n + u.rows, 0);
  }

  /**
   * Completes every unsettled insert (same rows, same token); throws when one still fails.
   * Runs before each write, and before anything that reads the rollups to rebuild them.
   */
  async completeUnsettled(): Promise<void> {
    for (const u of [...this.unsettled]) {
      u.completing ??= this.complete(u).finally(() => (u.completing = null));
      await u.completing;
    }
  }

  async write(batch: readonly (readonly QueuedLogRow[])[]): Promise<void> {
    await this.completeUnsettled();
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
        kept.push(before !== undefined ? { row, before } : { row });
      }
    }

    let unsettled = false;
    try {
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

      const token = randomUUID();
      const body = lines.length > 0 ? lines.join('\n') + '\n' : '';
      for (let attempt = 1; lines.length > 0; attempt++) {
        try {
          await this.insert(body, lines.length, token);
          break;
        } catch (err) {
          if (refusedForItsRows(err)) throw new RowsRefusedError(err);
          if (attempt >= INSERT_ATTEMPTS) {
            // Possibly stored in part: the ids stay claimed until it is completed.
            unsettled = true;
            this.unsettled.push({ token, body, rows: lines.length, failedAt: Date.now(), settle, stored, claims, outcome, completing: null });
            this.scheduleCompletion();
            throw err;
          }
          await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSES_MS[attempt - 1]));
        }
      }
      this.remember(stored);
      this.release(claims, outcome, settle, true);
      this.metrics.ingestedRecords.inc(lines.length);
      this.metrics.duplicateRecords.inc(duplicates);
    } catch (err) {
      // Nothing of it was stored (an unsettled insert keeps its claims until completed).
      if (!unsettled) this.release(claims, outcome, settle, false);
      throw err;
    }
  }

  private scheduleCompletion(): void {
    if (this.completionTimer !== null || this.unsettled.length === 0) return;
    this.completionTimer = setTimeout(() => {
      this.completeUnsettled()
        .catch((err: unknown) => this.logger.warn('completing a failed log insert failed again; retrying', { err }))
        .finally(() => {
          this.completionTimer = null;
          this.scheduleCompletion();
        });
    }, COMPLETION_INTERVAL_MS);
    this.completionTimer.unref();
  }

  /** Sends an unsettled insert again; on success its ids count as stored. */
  private async complete(u: Unsettled): Promise<void> {
    try {
      await this.insert(u.body, u.rows, u.token);
    } catch (err) {
      if (Date.now() - u.failedAt < UNSETTLED_GIVE_UP_MS) throw err;
      // Too old for a retry to be recognised: stop blocking ingest on it.
      this.unsettled.splice(this.unsettled.indexOf(u), 1);
      this.release(u.claims, u.outcome, u.settle, false);
      this.logger.error('gave up completing a failed log insert; it may be stored in part', { token: u.token, rows: u.rows, err });
      throw new Error(`gave up an insert that failed for ${UNSETTLED_GIVE_UP_MS / 60_000} minutes; it may be stored in part (token ${u.token})`, {
        cause: err,
      });
    }
    this.unsettled.splice(this.unsettled.indexOf(u), 1);
    this.remember(u.stored);
    this.release(u.claims, u.outcome, u.settle, true);
    this.metrics.ingestedRecords.inc(u.rows);
    this.logger.info('completed a failed log insert', { token: u.token, rows: u.rows });
  }

  private remember(stored: readonly QueuedLogRow[]): void {
    const acceptedAt = Date.now();
    for (const row of stored) this.recentIds.add(row.workspaceId, row.logId, acceptedAt);
  }

  /** Settles an insert's claims and drops them from inFlight. */
  private release(claims: readonly string[], outcome: Promise<boolean>, settle: (stored: boolean) => void, stored: boolean): void {
    settle(stored);
    for (const key of claims) if (this.inFlight.get(key) === outcome) this.inFlight.delete(key);
    this.reportWindow();
  }

  private async insert(body: string, rows: number, token: string): Promise<void> {
    const stopTimer = this.metrics.clickhouseInsertSeconds.startTimer();
    const result = await this.clickhouse.client.exec({ query: insertLogs(token), values: Readable.from([body]) });
    result.stream.resume();
    stopTimer();
    this.metrics.clickhouseInsertRows.observe(rows);
  }

  private reportWindow(): void {
    this.metrics.dedupWindowSeconds.set(this.recentIds.windowMs() / 1000);
    this.metrics.dedupRememberedIds.set(this.recentIds.size);
  }
}
