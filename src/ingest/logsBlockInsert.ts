// The insert of a block of journaled payloads into `logs`: the one way both journal writers
// (the local journal's, journalWriter.ts, and the stream's, stream/streamWriter.ts) and both
// repair paths (interruptedBlock.ts, stream/redelivered.ts) store journaled lines. A block
// holds ordinary records (LOG_COLUMNS) and, when there are any, summary records
// (recordSummary.ts, SUMMARY_LOG_COLUMNS): each kind goes in an insert of its own, the
// summaries under the block's token with `-summaries` after it, so that a retry after either
// insert failed stores each once.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Metrics } from '../metrics.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import { classifyClickHouseError } from '../stores/clickhouseErrors.js';
import { insertBody, insertRowsBound, LOG_COLUMNS, logsInsertSettings, type SeriesLabels, SUMMARY_LOG_COLUMNS, writeInsertRows } from './insertRows.js';

/**
 * Payload bytes turned into insert rows between two turns of the event loop (a few ms of work):
 * by bytes, not requests, since one large request's frames are up to MAX_APPEND_PAYLOAD_BYTES each.
 */
const BYTES_PER_TURN = 512 * 1024;

const RETRY_PAUSES_MS = [100, 250, 500, 1_000, 2_000, 5_000];
/** The writers' pause before retry number `attempt` (0 first) of anything that failed. */
export const pauseBeforeRetry = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, RETRY_PAUSES_MS[Math.min(attempt, RETRY_PAUSES_MS.length - 1)]));

/** What a writer's block is made of (a journal's frames, a stream's messages) and what it does with one ClickHouse refuses. */
export interface BlockOfUnits<T> {
  /** The deduplication token of a run of units: the same run always gets the same one. */
  token(units: readonly T[]): string;
  records(units: readonly T[], payloads: readonly Buffer[]): number;
  /** Takes the one unit whose rows ClickHouse refuses out of the way, so the rest flows on. */
  setAside(unit: T, payload: Buffer): Promise<void>;
  /** True once the writer is stopping past its drain deadline: a failing insert is then left for later. */
  givingUp(): boolean;
  /** Told of each failed insert before it is retried. */
  failed(err: unknown, attempt: number, token: string, records: number): void;
}

/** The insert rows of a block: its ordinary records', and its summary records' when it holds any. */
export interface BlockRows {
  readonly records: Buffer;
  readonly summaries: Buffer | null;
}

type TimezoneOf = (eventId: string) => string;

/** The series labels of a writer's rows (src/dimensions/seriesLabeller.ts), brought up to date before each block. */
export interface BlockSeriesLabels extends SeriesLabels {
  /** The first read of the declarations, before the writer builds its first block; a failure fails the open. */
  load(): Promise<void>;
  refresh(): Promise<void>;
  blockBuilt(): void;
}

/** Inserts the two kinds of rows with the settings given (the summaries' with their own settings). */
async function insertRows(
  clickhouse: ClickHouseStore,
  rows: BlockRows,
  settings: Record<string, string | number>,
  summarySettings: Record<string, string | number>,
): Promise<void> {
  if (rows.records.length > 0) {
    await clickhouse.insertBytes({ table: 'logs', columns: LOG_COLUMNS, format: 'JSONCompactEachRow', settings, body: rows.records });
  }
  if (rows.summaries !== null && rows.summaries.length > 0) {
    await clickhouse.insertBytes({
      table: 'logs',
      columns: SUMMARY_LOG_COLUMNS,
      format: 'JSONCompactEachRow',
      settings: summarySettings,
      body: rows.summaries,
    });
  }
}

/**
 * A writer's inserts of blocks into `logs`. The rows are built in one buffer kept from block to
 * block: allocating each block's (megabytes) anew made V8 run a full collection every few
 * hundred milliseconds under load, for the memory outside its heap, and each held the event
 * loop for 10-30 ms.
 */
export class LogsBlockInserter {
  private body = Buffer.alloc(0);
  /** Derives each record's series where dimensions are declared (none until set). */
  series: BlockSeriesLabels | null = null;

  constructor(
    private readonly clickhouse: ClickHouseStore,
    private readonly metrics: Metrics,
    private readonly timezoneOf: TimezoneOf,
  ) {}

  /**
   * The insert rows of the payloads, a few requests per turn of the event loop, so that
   * requests are answered meanwhile; the records' in this inserter's buffer, valid until the
   * next call. Summary records, when there are any, go into a buffer of their own.
   */
  async rowsOf(payloads: readonly Buffer[]): Promise<BlockRows> {
    // The payloads are chosen: declarations made before this point label them all.
    const series = this.series;
    if (series !== null) await series.refresh();
    const bound = insertRowsBound(payloads, series);
    if (this.body.length < bound) this.body = Buffer.allocUnsafeSlow(bound);
    let size = 0;
    const skipped = { lines: 0 };
    for (let i = 0; i < payloads.length; ) {
      if (i > 0) await nextTurn();
      let end = i;
      for (let bytes = 0; end < payloads.length && (end === i || bytes + payloads[end]!.length <= BYTES_PER_TURN); end++) bytes += payloads[end]!.length;
      size = writeInsertRows(payloads.slice(i, end), this.timezoneOf, this.body, size, 'records', skipped, series);
      i = end;
    }
    const summaries = skipped.lines > 0 ? insertBody(payloads, this.timezoneOf, 'summaries', series) : null;
    series?.blockBuilt();
    return { records: this.body.subarray(0, size), summaries };
  }

  /**
   * Inserts the units' payloads as one block under its token, retrying a failed insert until it
   * passes. Rows ClickHouse refuses are found by halving the block down to the one unit that
   * holds them, which is set aside; each part goes under its own token, so a replay splits the
   * same way and stores each part once. False when the writer gave up (stopping) first.
   */
  async insertSplitting<T>(units: readonly T[], payloads: readonly Buffer[], block: BlockOfUnits<T>): Promise<boolean> {
    const token = block.token(units);
    const rows = await this.rowsOf(payloads);
    const records = block.records(units, payloads);
    for (let attempt = 0; ; attempt++) {
      try {
        await this.insert(rows, records, token);
        return true;
      } catch (err) {
        if (classifyClickHouseError(err) === 'rows_refused') break;
        if (block.givingUp()) return false;
        this.metrics.clickhouseInsertFailures.inc();
        block.failed(err, attempt, token, records);
        await pauseBeforeRetry(attempt);
      }
    }
    if (units.length === 1) {
      await block.setAside(units[0]!, payloads[0]!);
      return true;
    }
    const half = Math.ceil(units.length / 2);
    return (
      (await this.insertSplitting(units.slice(0, half), payloads.slice(0, half), block)) && this.insertSplitting(units.slice(half), payloads.slice(half), block)
    );
  }

  /** Inserts a block's rows (`records` of them in all) under its deduplication token, and counts it. */
  async insert(rows: BlockRows, records: number, token: string): Promise<void> {
    const stopTimer = this.metrics.clickhouseInsertSeconds.startTimer();
    await insertRows(this.clickhouse, rows, logsInsertSettings(token), logsInsertSettings(`${token}-summaries`));
    stopTimer();
    this.metrics.clickhouseInsertRows.observe(records);
    this.metrics.ingestedRecords.inc(records);
  }
}

/**
 * Inserts the lines of the payloads without a token (a repair: these rows are missing whatever
 * a deduplication log says), both kinds. The caller counts them.
 */
export async function insertMissingRows(
  clickhouse: ClickHouseStore,
  payloads: readonly Buffer[],
  timezoneOf: TimezoneOf,
  series: BlockSeriesLabels | null = null,
): Promise<void> {
  const settings = { insert_deduplicate: 0 };
  await series?.refresh();
  const summaries = insertBody(payloads, timezoneOf, 'summaries', series);
  await insertRows(clickhouse, { records: insertBody(payloads, timezoneOf, 'records', series), summaries }, settings, settings);
  series?.blockBuilt();
}
