// Messages the stream delivers again: a writer took them and did not acknowledge them (it was
// killed, or its acknowledgement was lost). Their insert may have passed, in part, or not at
// all, and their block's bounds are not known any more (the block token cannot be rebuilt),
// so they are made to hold exactly once the way the local journal repairs the block a crash
// interrupted (../interruptedBlock.ts), from what `logs` holds:
//   - a record whose log_id `logs` holds with the same received_at is this record, stored
//     already; with another received_at it is a retry of a record stored before: dropped;
//   - the others are inserted (without a token);
//   - the rollups over the stretches they touch are rebuilt from `logs`.
// Every step is idempotent: delivered again after a crash in between, the result is the same.
import type { Logger } from '../../logger.js';
import { rebuildRollupStretches, type RollupStretch } from '../../rollups/rangeRebuild.js';
import type { ClickHouseStore } from '../../stores/clickhouse.js';
import { type BlockRow, rowsByWorkspace, widenStretches } from '../interruptedBlock.js';
import { type DecodedBatch, payloadOf } from '../journaledBatch.js';
import { type BlockSeriesLabels, insertMissingRows } from '../logsBlockInsert.js';

/** Ids looked up in one query. */
const IDS_PER_QUERY = 5_000;

/** For each log_id of the rows, the received_at instants (ms) `logs` holds it with. */
async function storedReceipts(clickhouse: ClickHouseStore, workspaceId: string, rows: readonly BlockRow[]): Promise<Map<string, Set<number>>> {
  const stored = new Map<string, Set<number>>();
  for (let i = 0; i < rows.length; i += IDS_PER_QUERY) {
    const part = rows.slice(i, i + IDS_PER_QUERY);
    let from = Infinity;
    let to = -Infinity;
    for (const r of part) {
      from = Math.min(from, r.occurredAt);
      to = Math.max(to, r.occurredAt);
    }
    const result = await clickhouse.client.query({
      query: `SELECT toString(log_id) AS id, toUnixTimestamp64Milli(received_at) AS received FROM logs
              WHERE workspace_id = {ws:String}
                AND occurred_at BETWEEN fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND fromUnixTimestamp64Milli({to:Int64}, 'UTC')
                AND log_id IN {ids:Array(UUID)}`,
      query_params: { ws: workspaceId, from, to, ids: part.map((r) => r.logId) },
      format: 'JSONEachRow',
    });
    for (const row of await result.json<{ id: string; received: number | string }>()) {
      const times = stored.get(row.id) ?? new Set<number>();
      times.add(Number(row.received));
      stored.set(row.id, times);
    }
  }
  return stored;
}

export interface RedeliveredOutcome {
  /** Records inserted now. */
  readonly inserted: number;
  /** Records `logs` held already (this very record) or that retried one stored before (dropped). */
  readonly present: number;
  readonly duplicates: number;
  /** The kept records' log ids by workspace, for the writer's idempotency window. */
  readonly keptIds: Map<string, string[]>;
}

/** Makes `logs` and the rollups hold the redelivered batches' records exactly once (see the file's comment). */
export async function storeRedelivered(
  clickhouse: ClickHouseStore,
  batches: readonly DecodedBatch[],
  timezoneOf: (eventId: string) => string,
  logger: Logger,
  series: BlockSeriesLabels | null = null,
): Promise<RedeliveredOutcome> {
  const stretches = new Map<string, RollupStretch>();
  const keptIds = new Map<string, string[]>();
  let inserted = 0;
  let present = 0;
  let duplicates = 0;
  for (const [workspaceId, { journaledAt, rows }] of rowsByWorkspace(batches)) {
    const stored = await storedReceipts(clickhouse, workspaceId, rows);
    const missing: BlockRow[] = [];
    const kept: BlockRow[] = [];
    const seen = new Set<string>();
    for (const r of rows) {
      const times = stored.get(r.logId);
      if (seen.has(r.logId) || (times !== undefined && !times.has(r.receivedAt))) {
        duplicates++;
        continue;
      }
      seen.add(r.logId);
      kept.push(r);
      if (times === undefined) missing.push(r);
      else present++;
    }
    if (missing.length > 0) {
      // Without a token: these rows are missing whatever a deduplication log says.
      await insertMissingRows(clickhouse, [payloadOf({ workspaceId, journaledAt, lines: missing.map((r) => r.line) })], timezoneOf, series);
      inserted += missing.length;
    }
    keptIds.set(
      workspaceId,
      kept.map((r) => r.logId),
    );
    widenStretches(stretches, workspaceId, kept, timezoneOf);
  }
  await rebuildRollupStretches(clickhouse, [...stretches.values()]);
  logger.info('journal stream: redelivered records are in logs and the rollups exactly once', {
    inserted,
    present,
    duplicates,
    rebuilt_stretches: stretches.size,
  });
  return { inserted, present, duplicates, keptIds };
}
