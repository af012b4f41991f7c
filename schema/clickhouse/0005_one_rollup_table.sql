-- One rollup table for the three periods (issue 15). A window comparison reads day, hour and
-- minute rows; from three tables that cost a parse and a plan per table (about 3.5 ms each
-- on chDB), from this one it is one scan with one plan. The per-period names stay, as views
-- over this table, for analysts (docs/analyst-sql.md).
--
-- Upgrading an existing store: the rows of rollup_minute, rollup_hour and rollup_day (0002)
-- are copied here, then each old table is replaced by a view of the same name and columns.
-- Every statement may run again (an interrupted upgrade is simply applied again): the copy
-- runs only while its old table is still a table, and first removes the rows a copy cut
-- short may have left. Logs inserted while one period is moved are not rolled up into that
-- period: upgrade with ingest stopped (the embedded store is upgraded before the service
-- accepts logs).
CREATE TABLE IF NOT EXISTS rollups
(
    workspace_id LowCardinality(String),
    event_id     UUID,
    period       Enum8('minute' = 1, 'hour' = 2, 'day' = 3),
    -- Start of the bucket, a UTC instant. A day starts at local midnight in the event's
    -- timezone, so a day is 23, 24 or 25 hours long, and in Asia/Kolkata starts at 18:30 UTC.
    bucket       DateTime('UTC'),
    agent        SimpleAggregateFunction(anyLast, String),
    event        SimpleAggregateFunction(anyLast, String),
    count        SimpleAggregateFunction(sum, UInt64),
    value        SimpleAggregateFunction(sum, Float64),
    squares      SimpleAggregateFunction(sum, Float64),
    min          SimpleAggregateFunction(min, Float64),
    max          SimpleAggregateFunction(max, Float64),
    -- Welford state (count, mean, M2): a numerically stable variance, also across buckets.
    variance     AggregateFunction(varSampStable, Float64),
    -- t-digest sketch for p95_est / p99_est; states merge across buckets.
    quantiles    AggregateFunction(quantilesTDigest(0.95, 0.99), Float64)
)
-- AggregatingMergeTree merges rows with the same sorting key by combining their states, so the
-- table stays exact however many inserts fed a bucket; readers GROUP BY the key with
-- sum/min/max and the -Merge combinators (or read the _v views).
ENGINE = AggregatingMergeTree
-- Monthly partitions: inserts touch one or two, and a window of up to two months reads two.
PARTITION BY toYYYYMM(bucket)
-- Reads are one workspace's event: tenant, then event; then the period, so that a window's
-- day, hour and minute ranges are each one contiguous stretch of the key.
ORDER BY (workspace_id, event_id, period, bucket)
-- Minute detail for 90 days (window analytics reach back at most two months), hourly detail
-- for about 13 months (a year-over-year look at any hour), days without limit. Periods share
-- parts, so expired rows leave in merges rather than by dropping whole parts.
TTL bucket + INTERVAL 90 DAY DELETE WHERE period = 'minute',
    bucket + INTERVAL 400 DAY DELETE WHERE period = 'hour'
-- Insert deduplication as for the tables it replaces (0004): a failed insert sent again with
-- its token is written once.
SETTINGS non_replicated_deduplication_window = 10000;

-- Minutes. The old view stops feeding the old table; the rows still there are copied; the
-- table becomes a view of the same name and columns; then the new view feeds `rollups`.
DROP VIEW IF EXISTS rollup_minute_mv;

DELETE FROM rollups WHERE period = 'minute'
    AND (SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'rollup_minute' AND engine = 'AggregatingMergeTree') = 1;

INSERT INTO rollups (workspace_id, event_id, period, bucket, agent, event, count, value, squares, min, max, variance, quantiles)
SETTINGS insert_deduplicate = 0
SELECT old.workspace_id, old.event_id, 'minute', old.bucket, old.agent, old.event, old.count, old.value, old.squares, old.min, old.max,
       old.variance, old.quantiles
FROM rollup_minute AS old
WHERE (SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'rollup_minute' AND engine = 'AggregatingMergeTree') = 1;

CREATE OR REPLACE VIEW rollup_minute AS
SELECT r.workspace_id AS workspace_id, r.event_id AS event_id, r.bucket AS bucket, r.agent AS agent, r.event AS event,
       r.count AS count, r.value AS value, r.squares AS squares, r.min AS min, r.max AS max,
       r.variance AS variance, r.quantiles AS quantiles
FROM rollups AS r
WHERE r.period = 'minute';

-- Column order and names match rollups: a materialized view writes by position.
-- Columns of logs are qualified because an alias (`value`) would shadow them otherwise.
CREATE MATERIALIZED VIEW IF NOT EXISTS rollups_minute_mv TO rollups AS
SELECT
    logs.workspace_id                                    AS workspace_id,
    logs.event_id                                        AS event_id,
    CAST('minute' AS Enum8('minute' = 1, 'hour' = 2, 'day' = 3)) AS period,
    toStartOfMinute(toDateTime(logs.occurred_at, 'UTC')) AS bucket,
    anyLast(logs.agent)                                  AS agent,
    anyLast(logs.event)                                  AS event,
    count()                                              AS count,
    sum(logs.value)                                      AS value,
    sum(logs.value * logs.value)                         AS squares,
    min(logs.value)                                      AS min,
    max(logs.value)                                      AS max,
    varSampStableState(logs.value)                       AS variance,
    quantilesTDigestState(0.95, 0.99)(logs.value)        AS quantiles
FROM logs
GROUP BY workspace_id, event_id, bucket;

-- Hours, the same way.
DROP VIEW IF EXISTS rollup_hour_mv;

DELETE FROM rollups WHERE period = 'hour'
    AND (SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'rollup_hour' AND engine = 'AggregatingMergeTree') = 1;

INSERT INTO rollups (workspace_id, event_id, period, bucket, agent, event, count, value, squares, min, max, variance, quantiles)
SETTINGS insert_deduplicate = 0
SELECT old.workspace_id, old.event_id, 'hour', old.bucket, old.agent, old.event, old.count, old.value, old.squares, old.min, old.max,
       old.variance, old.quantiles
FROM rollup_hour AS old
WHERE (SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'rollup_hour' AND engine = 'AggregatingMergeTree') = 1;

CREATE OR REPLACE VIEW rollup_hour AS
SELECT r.workspace_id AS workspace_id, r.event_id AS event_id, r.bucket AS bucket, r.agent AS agent, r.event AS event,
       r.count AS count, r.value AS value, r.squares AS squares, r.min AS min, r.max AS max,
       r.variance AS variance, r.quantiles AS quantiles
FROM rollups AS r
WHERE r.period = 'hour';

CREATE MATERIALIZED VIEW IF NOT EXISTS rollups_hour_mv TO rollups AS
SELECT
    logs.workspace_id                                    AS workspace_id,
    logs.event_id                                        AS event_id,
    CAST('hour' AS Enum8('minute' = 1, 'hour' = 2, 'day' = 3)) AS period,
    toStartOfHour(toDateTime(logs.occurred_at, 'UTC'))   AS bucket,
    anyLast(logs.agent)                                  AS agent,
    anyLast(logs.event)                                  AS event,
    count()                                              AS count,
    sum(logs.value)                                      AS value,
    sum(logs.value * logs.value)                         AS squares,
    min(logs.value)                                      AS min,
    max(logs.value)                                      AS max,
    varSampStableState(logs.value)                       AS variance,
    quantilesTDigestState(0.95, 0.99)(logs.value)        AS quantiles
FROM logs
GROUP BY workspace_id, event_id, bucket;

-- Days, the same way. A day is local midnight of the event's timezone, computed per record
-- at ingest (logs.day_start).
DROP VIEW IF EXISTS rollup_day_mv;

DELETE FROM rollups WHERE period = 'day'
    AND (SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'rollup_day' AND engine = 'AggregatingMergeTree') = 1;

INSERT INTO rollups (workspace_id, event_id, period, bucket, agent, event, count, value, squares, min, max, variance, quantiles)
SETTINGS insert_deduplicate = 0
SELECT old.workspace_id, old.event_id, 'day', old.bucket, old.agent, old.event, old.count, old.value, old.squares, old.min, old.max,
       old.variance, old.quantiles
FROM rollup_day AS old
WHERE (SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'rollup_day' AND engine = 'AggregatingMergeTree') = 1;

CREATE OR REPLACE VIEW rollup_day AS
SELECT r.workspace_id AS workspace_id, r.event_id AS event_id, r.bucket AS bucket, r.agent AS agent, r.event AS event,
       r.count AS count, r.value AS value, r.squares AS squares, r.min AS min, r.max AS max,
       r.variance AS variance, r.quantiles AS quantiles
FROM rollups AS r
WHERE r.period = 'day';

CREATE MATERIALIZED VIEW IF NOT EXISTS rollups_day_mv TO rollups AS
SELECT
    logs.workspace_id                                    AS workspace_id,
    logs.event_id                                        AS event_id,
    CAST('day' AS Enum8('minute' = 1, 'hour' = 2, 'day' = 3)) AS period,
    logs.day_start                                       AS bucket,
    anyLast(logs.agent)                                  AS agent,
    anyLast(logs.event)                                  AS event,
    count()                                              AS count,
    sum(logs.value)                                      AS value,
    sum(logs.value * logs.value)                         AS squares,
    min(logs.value)                                      AS min,
    max(logs.value)                                      AS max,
    varSampStableState(logs.value)                       AS variance,
    quantilesTDigestState(0.95, 0.99)(logs.value)        AS quantiles
FROM logs
GROUP BY workspace_id, event_id, bucket;

-- rollup_minute_v (0003), now read straight from `rollups`: every number final, one row per bucket.
CREATE OR REPLACE VIEW rollup_minute_v AS
SELECT
    r.workspace_id                                          AS workspace_id,
    r.event_id                                              AS event_id,
    r.bucket                                                AS bucket,
    anyLast(r.agent)                                        AS agent,
    anyLast(r.event)                                        AS event,
    sum(r.count)                                            AS count,
    sum(r.value)                                            AS value,
    sum(r.squares)                                          AS squares,
    min(r.min)                                              AS min,
    max(r.max)                                              AS max,
    value / count                                           AS mean,
    if(count < 2, 0, sqrt(varSampStableMerge(r.variance)))  AS stddev,
    quantilesTDigestMerge(0.95, 0.99)(r.quantiles)          AS quantiles,
    quantiles[1]                                            AS p95,
    quantiles[2]                                            AS p99
FROM rollups AS r
WHERE r.period = 'minute'
GROUP BY workspace_id, event_id, bucket;

-- rollup_hour_v (0003), now read straight from `rollups`: every number final, one row per bucket.
CREATE OR REPLACE VIEW rollup_hour_v AS
SELECT
    r.workspace_id                                          AS workspace_id,
    r.event_id                                              AS event_id,
    r.bucket                                                AS bucket,
    anyLast(r.agent)                                        AS agent,
    anyLast(r.event)                                        AS event,
    sum(r.count)                                            AS count,
    sum(r.value)                                            AS value,
    sum(r.squares)                                          AS squares,
    min(r.min)                                              AS min,
    max(r.max)                                              AS max,
    value / count                                           AS mean,
    if(count < 2, 0, sqrt(varSampStableMerge(r.variance)))  AS stddev,
    quantilesTDigestMerge(0.95, 0.99)(r.quantiles)          AS quantiles,
    quantiles[1]                                            AS p95,
    quantiles[2]                                            AS p99
FROM rollups AS r
WHERE r.period = 'hour'
GROUP BY workspace_id, event_id, bucket;

-- rollup_day_v (0003), now read straight from `rollups`: every number final, one row per bucket.
CREATE OR REPLACE VIEW rollup_day_v AS
SELECT
    r.workspace_id                                          AS workspace_id,
    r.event_id                                              AS event_id,
    r.bucket                                                AS bucket,
    anyLast(r.agent)                                        AS agent,
    anyLast(r.event)                                        AS event,
    sum(r.count)                                            AS count,
    sum(r.value)                                            AS value,
    sum(r.squares)                                          AS squares,
    min(r.min)                                              AS min,
    max(r.max)                                              AS max,
    value / count                                           AS mean,
    if(count < 2, 0, sqrt(varSampStableMerge(r.variance)))  AS stddev,
    quantilesTDigestMerge(0.95, 0.99)(r.quantiles)          AS quantiles,
    quantiles[1]                                            AS p95,
    quantiles[2]                                            AS p99
FROM rollups AS r
WHERE r.period = 'day'
GROUP BY workspace_id, event_id, bucket;
