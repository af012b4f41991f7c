// Days of rollup history for a benchmark's event definitions: a row per minute, hour and day
// of a record each, written straight into `rollups` (as a service running for those days has
// them) and merged, so that a read meets a table where each definition's rows span many
// granules, not the few minutes of logs a fixture sends.
import type { Stores } from '../../../src/stores/index.js';

export interface HistoryDefinition {
  readonly workspaceId: string;
  readonly id: string;
  readonly event: string;
  readonly agent: string;
}

/** `days` days of rollup rows of these definitions ending at `end` (ms, where the fixture's logs begin). */
export async function writeRollupHistory(stores: Stores, defs: readonly HistoryDefinition[], end: number, days: number): Promise<void> {
  for (const [period, seconds] of [
    ['minute', 60],
    ['hour', 3600],
    ['day', 86_400],
  ] as const) {
    const perDefinition = (days * 86_400) / seconds;
    for (let i = 0; i < defs.length; i += 1_000) {
      const chunk = defs.slice(i, i + 1_000);
      await stores.clickhouse.client.command({
        query: `
          INSERT INTO rollups (workspace_id, event_id, period, bucket, agent, event, count, value, squares, min, max, variance, quantiles)
          SELECT {workspaces:Array(String)}[d + 1], {ids:Array(UUID)}[d + 1], {period:String},
                 toDateTime(intDiv({end:Int64}, 1000) - (n + 1) * {seconds:UInt32}, 'UTC'),
                 {agents:Array(String)}[d + 1], {names:Array(String)}[d + 1], 1, v, v * v, v, v,
                 initializeAggregation('varSampStableState', v), initializeAggregation('quantilesTDigestState(0.95, 0.99)', v)
          FROM (SELECT intDiv(number, {per:UInt32}) AS d, number % {per:UInt32} AS n, (cityHash64(number) % 10000) / 100 AS v FROM numbers({rows:UInt64}))`,
        query_params: {
          workspaces: chunk.map((d) => d.workspaceId),
          ids: chunk.map((d) => d.id),
          agents: chunk.map((d) => d.agent),
          names: chunk.map((d) => d.event),
          period,
          end: Math.floor(end / (seconds * 1000)) * seconds * 1000,
          seconds,
          per: perDefinition,
          rows: chunk.length * perDefinition,
        },
        clickhouse_settings: { insert_deduplicate: 0 },
      });
    }
  }
  await stores.clickhouse.client.command({ query: 'OPTIMIZE TABLE rollups FINAL' });
}
