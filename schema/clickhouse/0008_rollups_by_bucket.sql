-- The event rollups a second time, in bucket order: a projection of `rollups` sorted by
-- (workspace, period, bucket, event name). The table's own order (0005) keeps each event
-- definition's rows together, which is what one event's reads want (window analytics, charts,
-- backtests: one stretch of the key). Reads of few buckets across many definitions want the
-- opposite: a fleet policy's bucket over 10,000 agents, a ranked comparison by agent, the
-- worker's cycle over thousands of events. In the table's order such a read meets each
-- definition's rows in a granule (8,192 rows) of their own once the table holds more than a
-- few hours, and reads all of them: with one day of history, a 10,000-agent fleet's minute
-- read 10,000 granules for 10,000 rows (measured: bench:fleet --history-days 1). In the
-- projection those rows are one stretch of its key. The engine picks, for each read, the
-- order that reads fewer granules; nothing in the queries names it.
--
-- What it costs: each insert's rollup rows are sorted and written twice (a direct insert of
-- 12,000 rollup rows 27 → 50 ms in a probe; the ingest writer's mean insert about a quarter
-- longer, docs/performance.md), merges rebuild the projection from the merged rows ('rebuild',
-- the mode an AggregatingMergeTree needs: the projection then always holds the part's merged
-- rows), and the table's disk use doubles (20.7 million rows: 632 MiB → 1.25 GiB). A
-- lightweight DELETE (the rebuilds of rangeRebuild.ts and dayRebuild.ts) rebuilds the
-- projection of the parts it touches.
--
-- Upgrading: the projection is built for existing parts by a background mutation; until it has
-- reached a part, reads of that part use the table's order, with the same results. Every
-- statement may run again.
ALTER TABLE rollups MODIFY SETTING deduplicate_merge_projection_mode = 'rebuild', lightweight_mutation_projection_mode = 'rebuild';

ALTER TABLE rollups ADD PROJECTION IF NOT EXISTS by_bucket (SELECT * ORDER BY (workspace_id, period, bucket, event));

ALTER TABLE rollups MATERIALIZE PROJECTION by_bucket;
