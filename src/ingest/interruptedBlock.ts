// The block a crash interrupted, after the journal writer inserted it again with its token.
// A token makes each table skip the block if it holds it, but a non-replicated MergeTree
// killed between writing the block id to its deduplication log and committing the part keeps
// the id without the rows: that table then skips the block for good (seen in kill -9 tests
// with the embedded engine: one rollup a whole block short). So the writer makes sure:
//   1. every row of the block is in `logs` (its log_id, found by the request's receive time);
//      missing rows are inserted again, without a token;
//   2. the minute, hour and day rollups over the stretches the block touched are rebuilt from
//      `logs` (src/rollups/rangeRebuild.ts).
// Both are idempotent, and run before the checkpoint moves on: a crash meanwhile repeats them.
import type { Logger } from '../logger.js';
import { rebuildRollupStretches, type RollupStretch } from '../rollups/rangeRebuild.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import { classifyClickHouseError } from '../stores/clickhouseErrors.js';
import { type DecodedBatch, payloadOf } from './journaledBatch.js';
import { type BlockSeriesLabels, insertMissingRows } from './logsBlockInsert.js';

export interface BlockRow {
  readonly line: string;
  readonly eventId: string;
  readonly occurredAt: number;
  readonly logId: string;
  readonly receivedAt: number;
}

/** Fields of a journal line: `eventId \t occurredAt \t clientLogId \t row`; the row is a JSON array without its end (day_start). */
export function parseLine(line: string): BlockRow {
  const first = line.indexOf('\t');
  const second = line.indexOf('\t', first + 1);
  const third = line.indexOf('\t', second + 1);
  // A summary record's line has its summary columns after one more tab (recordSummary.ts).
  const fourth = line.indexOf('\t', third + 1);
  const row = JSON.parse(`${line.slice(third + 1, fourth < 0 ? undefined : fourth)}]`) as unknown[];
  return {
    line,
    eventId: line.slice(0, first),
    occurredAt: Number(line.slice(first + 1, second)),
    logId: String(row[4]),
    receivedAt: Date.parse(String(row[7])),
  };
}

/** The batches' rows by workspace, each with the journaledAt of its first batch (for the payload of rows inserted again). */
export function rowsByWorkspace(batches: readonly DecodedBatch[]): Map<string, { journaledAt: number; rows: BlockRow[] }> {
  const byWorkspace = new Map<string, { journaledAt: number; rows: BlockRow[] }>();
  for (const b of batches) {
    const entry = byWorkspace.get(b.workspaceId) ?? { journaledAt: b.journaledAt, rows: [] };
    for (const line of b.lines) if (line !== '') entry.rows.push(parseLine(line));
    byWorkspace.set(b.workspaceId, entry);
  }
  return byWorkspace;
}

/** Widens `stretches` (one per workspace and event) to the rows' times: what the rollups must be rebuilt over. */
export function widenStretches(
  stretches: Map<string, RollupStretch>,
  workspaceId: string,
  rows: readonly BlockRow[],
  timezoneOf: (eventId: string) => string,
): void {
  for (const r of rows) {
    const key = `${workspaceId}\t${r.eventId}`;
    const s = stretches.get(key);
    stretches.set(key, {
      workspaceId,
      eventId: r.eventId,
      fromMs: Math.min(s?.fromMs ?? Infinity, r.occurredAt),
      toMs: Math.max(s?.toMs ?? -Infinity, r.occurredAt),
      timezone: timezoneOf(r.eventId),
    });
  }
}

/** Rows of one workspace's part of the block that `logs` lacks; logs ids it holds twice. */
async function missingRows(clickhouse: ClickHouseStore, workspaceId: string, rows: readonly BlockRow[], logger: Logger): Promise<BlockRow[]> {
  let from = Infinity;
  let to = -Infinity;
  let receivedFrom = Infinity;
  let receivedTo = -Infinity;
  for (const r of rows) {
    from = Math.min(from, r.occurredAt);
    to = Math.max(to, r.occurredAt);
    receivedFrom = Math.min(receivedFrom, r.receivedAt);
    receivedTo = Math.max(receivedTo, r.receivedAt);
  }
  const result = await clickhouse.client.query({
    query: `SELECT toString(log_id) AS id, count() AS n FROM logs
            WHERE workspace_id = {ws:String}
              AND occurred_at BETWEEN fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND fromUnixTimestamp64Milli({to:Int64}, 'UTC')
              AND received_at BETWEEN fromUnixTimestamp64Milli({rfrom:Int64}, 'UTC') AND fromUnixTimestamp64Milli({rto:Int64}, 'UTC')
            GROUP BY log_id`,
    query_params: { ws: workspaceId, from, to, rfrom: receivedFrom, rto: receivedTo },
    format: 'JSONEachRow',
  });
  const stored = new Map((await result.json<{ id: string; n: number | string }>()).map((r) => [r.id, Number(r.n)]));
  const doubled = rows.filter((r) => (stored.get(r.logId) ?? 0) > 1).length;
  if (doubled > 0) logger.error('journal repair: logs holds rows of the interrupted block twice', { workspace_id: workspaceId, rows: doubled });
  return rows.filter((r) => !stored.has(r.logId));
}

/** Makes `logs` and the rollups hold the interrupted block exactly once (see the file's comment). */
export async function repairInterruptedBlock(
  clickhouse: ClickHouseStore,
  batches: readonly DecodedBatch[],
  timezoneOf: (eventId: string) => string,
  logger: Logger,
  series: BlockSeriesLabels | null = null,
): Promise<void> {
  const stretches = new Map<string, RollupStretch>();
  let reinserted = 0;
  for (const [workspaceId, { journaledAt, rows }] of rowsByWorkspace(batches)) {
    if (rows.length === 0) continue;
    const missing = await missingRows(clickhouse, workspaceId, rows, logger);
    if (missing.length > 0) {
      const payload = [payloadOf({ workspaceId, journaledAt, lines: missing.map((r) => r.line) })];
      try {
        // Without a token: these rows are missing whatever the deduplication log says.
        await insertMissingRows(clickhouse, payload, timezoneOf, series);
        reinserted += missing.length;
      } catch (err) {
        // Rows ClickHouse refuses were set aside with their request when the block was inserted.
        if (classifyClickHouseError(err) !== 'rows_refused') throw err;
        logger.error('journal repair: rows of the interrupted block are refused by ClickHouse (set aside under refused/)', {
          workspace_id: workspaceId,
          rows: missing.length,
        });
      }
    }
    widenStretches(stretches, workspaceId, rows, timezoneOf);
  }
  await rebuildRollupStretches(clickhouse, [...stretches.values()]);
  logger.info('journal: the block a crash interrupted is in logs and the rollups exactly once', {
    records: batches.reduce((n, b) => n + b.lines.length, 0),
    reinserted_into_logs: reinserted,
    rebuilt_stretches: stretches.size,
  });
}
