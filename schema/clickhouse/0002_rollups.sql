-- rollup_minute: one row per (workspace, event, minute) after merges. AggregatingMergeTree merges
-- rows with the same sorting key by combining their aggregate states, so the table stays
-- exact however many inserts fed a bucket. Read it through rollup_minute_v (0003), or GROUP BY
-- the key with sum/min/max and the -Merge combinators.
CREATE TABLE IF NOT EXISTS rollup_minute
(
    workspace_id LowCardinality(String),
    event_id     UUID,
    -- Start of the bucket, a UTC instant.
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
ENGINE = AggregatingMergeTree
-- Monthly partitions, like logs.
PARTITION BY toYYYYMM(bucket)
-- Reads are one workspace's event over a time range.
ORDER BY (workspace_id, event_id, bucket)
-- Minute detail for 90 days: window analytics reach back at most two months.
TTL bucket + INTERVAL 90 DAY
SETTINGS ttl_only_drop_parts = 1;

-- Column order and names match rollup_minute: a materialized view writes by position.
-- Columns of logs are qualified because an alias (`value`) would shadow them otherwise.
CREATE MATERIALIZED VIEW IF NOT EXISTS rollup_minute_mv TO rollup_minute AS
SELECT
    logs.workspace_id                                   AS workspace_id,
    logs.event_id                                       AS event_id,
    toStartOfMinute(toDateTime(logs.occurred_at, 'UTC')) AS bucket,
    anyLast(logs.agent)                                 AS agent,
    anyLast(logs.event)                                 AS event,
    count()                                             AS count,
    sum(logs.value)                                     AS value,
    sum(logs.value * logs.value)                        AS squares,
    min(logs.value)                                     AS min,
    max(logs.value)                                     AS max,
    varSampStableState(logs.value)                      AS variance,
    quantilesTDigestState(0.95, 0.99)(logs.value)       AS quantiles
FROM logs
GROUP BY workspace_id, event_id, bucket;

-- rollup_hour: one row per (workspace, event, hour) after merges. AggregatingMergeTree merges
-- rows with the same sorting key by combining their aggregate states, so the table stays
-- exact however many inserts fed a bucket. Read it through rollup_hour_v (0003), or GROUP BY
-- the key with sum/min/max and the -Merge combinators.
CREATE TABLE IF NOT EXISTS rollup_hour
(
    workspace_id LowCardinality(String),
    event_id     UUID,
    -- Start of the bucket, a UTC instant.
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
ENGINE = AggregatingMergeTree
-- Monthly partitions, like logs.
PARTITION BY toYYYYMM(bucket)
-- Reads are one workspace's event over a time range.
ORDER BY (workspace_id, event_id, bucket)
-- Hourly detail for about 13 months: a year-over-year look at any hour.
TTL bucket + INTERVAL 400 DAY
SETTINGS ttl_only_drop_parts = 1;

-- Column order and names match rollup_hour: a materialized view writes by position.
-- Columns of logs are qualified because an alias (`value`) would shadow them otherwise.
CREATE MATERIALIZED VIEW IF NOT EXISTS rollup_hour_mv TO rollup_hour AS
SELECT
    logs.workspace_id                                   AS workspace_id,
    logs.event_id                                       AS event_id,
    toStartOfHour(toDateTime(logs.occurred_at, 'UTC'))   AS bucket,
    anyLast(logs.agent)                                 AS agent,
    anyLast(logs.event)                                 AS event,
    count()                                             AS count,
    sum(logs.value)                                     AS value,
    sum(logs.value * logs.value)                        AS squares,
    min(logs.value)                                     AS min,
    max(logs.value)                                     AS max,
    varSampStableState(logs.value)                      AS variance,
    quantilesTDigestState(0.95, 0.99)(logs.value)       AS quantiles
FROM logs
GROUP BY workspace_id, event_id, bucket;

-- rollup_day: one row per (workspace, event, day) after merges. AggregatingMergeTree merges
-- rows with the same sorting key by combining their aggregate states, so the table stays
-- exact however many inserts fed a bucket. Read it through rollup_day_v (0003), or GROUP BY
-- the key with sum/min/max and the -Merge combinators.
CREATE TABLE IF NOT EXISTS rollup_day
(
    workspace_id LowCardinality(String),
    event_id     UUID,
    -- Start of the bucket, a UTC instant: local midnight in the event's timezone, so a
    -- day is 23, 24 or 25 hours long, and in Asia/Kolkata starts at 18:30 UTC.
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
ENGINE = AggregatingMergeTree
-- Yearly partitions: a day rollup is small, and kept without limit.
PARTITION BY toYear(bucket)
-- Reads are one workspace's event over a time range.
ORDER BY (workspace_id, event_id, bucket);

-- Column order and names match rollup_day: a materialized view writes by position.
-- Columns of logs are qualified because an alias (`value`) would shadow them otherwise.
CREATE MATERIALIZED VIEW IF NOT EXISTS rollup_day_mv TO rollup_day AS
SELECT
    logs.workspace_id                                   AS workspace_id,
    logs.event_id                                       AS event_id,
    logs.day_start                                      AS bucket,
    anyLast(logs.agent)                                 AS agent,
    anyLast(logs.event)                                 AS event,
    count()                                             AS count,
    sum(logs.value)                                     AS value,
    sum(logs.value * logs.value)                        AS squares,
    min(logs.value)                                     AS min,
    max(logs.value)                                     AS max,
    varSampStableState(logs.value)                      AS variance,
    quantilesTDigestState(0.95, 0.99)(logs.value)       AS quantiles
FROM logs
GROUP BY workspace_id, event_id, bucket;
