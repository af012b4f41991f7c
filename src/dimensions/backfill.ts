// The backfill (docs/fleets.md, Backfill): a declaration's series rollups rebuilt from the raw
// logs kept, in the background, with no gap and no double count against records landing
// meanwhile. The cut is the declaration's version, which every logs row carries
// (dims_version): rows written under it reach the series rollups through the materialized
// views as they land; the backfill rolls up exactly the other rows. The two sets are disjoint
// (no double count); no row of an older version is written after the backfill reads, because
// it first waits until every block this process built before the declaration is in
// ClickHouse (blocks built after it carry the new version: the writer reads the declarations
// again before its next block), and waits DIMENSION_REFRESH_MS × 3 for writers of other
// processes, which read them that often. Its own rows are marked (origin 'backfill'): a
// backfill run again (after a restart) removes them first. Rows of earlier versions go once
// it is done.
import type { Logger } from '../logger.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { Queryable } from '../stores/postgres.js';
import type { Dimension } from './model.js';
import { OVERFLOW_VALUE } from './model.js';
import type { SeriesBackfill } from './operations.js';
import { DIMENSION_REFRESH_MS } from './seriesLabeller.js';
import { finishBackfill, runningBackfills } from './store.js';

/** The raw logs kept (schema/clickhouse/0001_logs.sql): at least 60 days. */
const LOGS_KEPT_MS = 60 * 86_400_000;

const PERIOD_BUCKETS = {
  minute: "toStartOfMinute(toDateTime(l.occurred_at, 'UTC'))",
  hour: "toStartOfHour(toDateTime(l.occurred_at, 'UTC'))",
  day: 'l.day_start',
} as const;

const ORDINARY_FIGURES = `count() AS count, sum(l.value) AS value, sum(l.value * l.value) AS squares, min(l.value) AS min, max(l.value) AS max,
       varSampStableState(l.value) AS variance, quantilesTDigestState(0.95, 0.99)(l.value) AS quantiles`;
const SUMMARY_FIGURES = `sum(l.weight) AS count, sum(l.value) AS value, sum(l.summary_squares) AS squares, min(l.summary_min) AS min, max(l.summary_max) AS max,
       varSampStableMergeState(CAST(unhex(l.summary_variance) AS AggregateFunction(varSampStable, Float64))) AS variance,
       CAST(toString(quantilesTDigestWeightedStateArray(0.95, 0.99)(l.sketch_means, l.sketch_weights)) AS AggregateFunction(quantilesTDigest(0.95, 0.99), Float64)) AS quantiles`;

/** A key's label from meta, as the writer derives it (seriesLabeller.ts, labelValue): strings as they are, numbers and booleans as their JSON text, else ''. */
const LABEL_VALUE = `multiIf(JSONType(l.meta, k) = 'String', JSONExtractString(l.meta, k),
  JSONType(l.meta, k) IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(l.meta, k), '')`;

export class SeriesBackfiller implements SeriesBackfill {
  readonly reachMs = LOGS_KEPT_MS;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly postgres: Queryable,
    private readonly clickhouse: ClickHouseStore,
    /** Resolves once every block this process journaled before the call is in ClickHouse (none: resolves at once). */
    private readonly caughtUp: () => Promise<void>,
    private readonly maxSeries: number,
    private readonly logger: Logger,
    private readonly pauseMs = 3 * DIMENSION_REFRESH_MS,
  ) {}

  start(dimension: Dimension): void {
    this.queue = this.queue
      .then(() => this.run(dimension))
      .catch((err: unknown) => {
        this.logger.error('dimensions: a backfill failed; it runs again at the next start', { err, event: dimension.event });
      });
  }

  /** The backfills a stopped process left running, started again. */
  async resume(): Promise<void> {
    for (const dimension of await runningBackfills(this.postgres)) this.start(dimension);
  }

  /** Resolves once every backfill started so far has ended (tests). */
  settled(): Promise<void> {
    return this.queue;
  }

  async forget(workspaceId: string, event: string): Promise<void> {
    try {
      await this.clickhouse.client.command({
        query: 'ALTER TABLE series_rollups DELETE WHERE workspace_id = {ws:String} AND event = {event:String}',
        query_params: { ws: workspaceId, event },
        clickhouse_settings: { mutations_sync: '1' },
      });
    } catch (err) {
      // The removal is committed; the rows left are never read (each declaration has a version of its own).
      this.logger.warn('dimensions: could not remove the series rollups of a removed declaration; a later declaration of the name removes them', {
        err,
        workspace_id: workspaceId,
        event,
      });
    }
  }

  private async run(d: Dimension): Promise<void> {
    await this.caughtUp();
    await new Promise((resolve) => setTimeout(resolve, this.pauseMs));
    await this.caughtUp();
    const params = {
      ws: d.workspace_id,
      event: d.event,
      version: d.version,
      keys: d.keys,
      overflow: d.keys.map(() => OVERFLOW_VALUE),
      from: d.backfill_from?.getTime() ?? 0,
      to: d.backfill_to?.getTime() ?? Date.now(),
      max_series: this.maxSeries,
    };
    const mutate = (query: string) => this.clickhouse.client.command({ query, query_params: params, clickhouse_settings: { mutations_sync: '1' } });
    await mutate(
      "ALTER TABLE series_rollups DELETE WHERE workspace_id = {ws:String} AND event = {event:String} AND version = {version:UInt32} AND origin = 'backfill'",
    );
    if (d.keys.length > 0) {
      const rows = `l.workspace_id = {ws:String} AND l.event = {event:String} AND l.dims_version != {version:UInt32}
        AND l.occurred_at >= fromUnixTimestamp64Milli({from:Int64}) AND l.occurred_at < fromUnixTimestamp64Milli({to:Int64})`;
      const values = `arrayMap(k -> ${LABEL_VALUE}, {keys:Array(String)})`;
      // The bound on series: the DIMENSION_MAX_SERIES series with the most records keep their own; the rest go to their agent's overflow series.
      const kept = `(SELECT l.agent, ${values} AS vals FROM logs AS l WHERE ${rows} GROUP BY l.agent, vals ORDER BY count() DESC LIMIT {max_series:UInt32})`;
      for (const [period, bucket] of Object.entries(PERIOD_BUCKETS)) {
        for (const [figures, kind] of [
          [ORDINARY_FIGURES, 'empty(l.sketch_means)'],
          [SUMMARY_FIGURES, 'notEmpty(l.sketch_means)'],
        ] as const) {
          await this.clickhouse.client.command({
            query: `
              INSERT INTO series_rollups (workspace_id, event, version, origin, period, bucket, agent, labels, event_id, count, value, squares, min, max, variance, quantiles)
              SETTINGS insert_deduplicate = 0
              SELECT {ws:String}, {event:String}, {version:UInt32}, 'backfill', '${period}', ${bucket} AS bucket, l.agent AS agent,
                     CAST(mapFromArrays({keys:Array(String)}, if((l.agent, ${values}) IN ${kept}, ${values}, {overflow:Array(String)}))
                          AS Map(LowCardinality(String), String)) AS labels,
                     anyLast(l.event_id), ${figures}
              FROM logs AS l
              WHERE ${rows} AND ${kind}
              GROUP BY bucket, agent, labels`,
            query_params: params,
          });
        }
      }
    }
    await mutate('ALTER TABLE series_rollups DELETE WHERE workspace_id = {ws:String} AND event = {event:String} AND version < {version:UInt32}');
    await finishBackfill(this.postgres, d.workspace_id, d.event, d.version);
  }
}
