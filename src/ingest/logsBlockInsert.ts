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
import { insertBody, insertRowsBound, LOG_COLUMNS, logsInsertSettings, SUMMARY_LOG_COLUMNS, writeInsertRows } from './journaledBatch.js';

/** Requests (payloads) turned into insert rows between two turns of the event loop (about 5 ms of work). */
const FRAMES_PER_TURN = 16;

/** The insert rows of a block: its ordinary records', and its summary records' when it holds any. */
export interface BlockRows {
  readonly records: Buffer;
  readonly summaries: Buffer | null;
}

type TimezoneOf = (eventId: string) => string;

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
    const bound = insertRowsBound(payloads);
    if (this.body.length < bound) this.body = Buffer.allocUnsafeSlow(bound);
    let size = 0;
    const skipped = { lines: 0 };
    for (let i = 0; i < payloads.length; i += FRAMES_PER_TURN) {
      if (i > 0) await nextTurn();
      size = writeInsertRows(payloads.slice(i, i + FRAMES_PER_TURN), this.timezoneOf, this.body, size, 'records', skipped);
    }
    const summaries = skipped.lines > 0 ? insertBody(payloads, this.timezoneOf, 'summaries') : null;
    return { records: this.body.subarray(0, size), summaries };
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
export async function insertMissingRows(clickhouse: ClickHouseStore, payloads: readonly Buffer[], timezoneOf: TimezoneOf): Promise<void> {
  const settings = { insert_deduplicate: 0 };
  const summaries = insertBody(payloads, timezoneOf, 'summaries');
  await insertRows(clickhouse, { records: insertBody(payloads, timezoneOf), summaries }, settings, settings);
}
