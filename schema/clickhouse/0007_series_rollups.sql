-- Series rollups (docs/fleets.md): an event name's records broken down by the meta keys
-- declared for it (the dimensions, Postgres `dimensions`). The writer derives each record's
-- series once, as it builds the record's insert row (src/dimensions/seriesLabels.ts): the
-- value of each declared key in its meta, past DIMENSION_MAX_SERIES the agent's overflow
-- series. `logs` keeps them beside the record; the views below roll them up per series and
-- minute/hour/day, exactly as 0005/0006 roll up the event: the same figures built by the same
-- expressions, ordinary records and summary rows each by views of their own, and the same
-- insert deduplication (a retried insert with its token is stored once in `series_rollups`
-- too, deduplicate_blocks_in_dependent_materialized_views is set on every insert).
--
-- Upgrading: the columns are added with defaults (no labels, version 0), so every existing
-- row reads as a record of an event name without dimensions, which the views leave out;
-- nothing is rewritten. Every statement may run again.

-- The record's series labels: each declared key → its value ('' when absent, null, an object
-- or an array; "__overflow__" in an overflow series). Empty when its event name had no keys
-- declared when the row was written.
ALTER TABLE logs ADD COLUMN IF NOT EXISTS labels Map(LowCardinality(String), String) DEFAULT map();
-- The version of the declaration the labels were made under (Postgres dimensions.version;
-- 0 without one). A backfill of version v rebuilds from the rows of other versions only.
ALTER TABLE logs ADD COLUMN IF NOT EXISTS dims_version UInt32 DEFAULT 0;

CREATE TABLE IF NOT EXISTS series_rollups
(
    workspace_id LowCardinality(String),
    event        String,
    -- The declaration's version the rows were made under; readers take the current one only.
    version      UInt32,
    -- Rows rolled up as records landed (1), or rebuilt from raw logs by a backfill (2): a
    -- backfill started again removes its own rows first, and never touches the others.
    origin       Enum8('ingest' = 1, 'backfill' = 2),
    period       Enum8('minute' = 1, 'hour' = 2, 'day' = 3),
    bucket       DateTime('UTC'),
    agent        String,
    labels       Map(LowCardinality(String), String),
    event_id     SimpleAggregateFunction(anyLast, UUID),
    count        SimpleAggregateFunction(sum, UInt64),
    value        SimpleAggregateFunction(sum, Float64),
    squares      SimpleAggregateFunction(sum, Float64),
    min          SimpleAggregateFunction(min, Float64),
    max          SimpleAggregateFunction(max, Float64),
    variance     AggregateFunction(varSampStable, Float64),
    quantiles    AggregateFunction(quantilesTDigest(0.95, 0.99), Float64)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(bucket)
-- Reads are one workspace's event name over a bucket range, across its agents and series, so
-- tenant, name, version and period lead and the bucket follows: a read is one contiguous
-- stretch of the key whatever the series count. The series (agent, then the labels' keys and
-- values) come last: they tell rows apart, they are never searched on. Built for what
-- DIMENSION_MAX_SERIES bounds: up to 10,000 series per event name in a day, so a minute
-- bucket of a busy name is at most 10,000 rows (a day of them 14.4 million), an hour or a day
-- bucket the same 10,000; the agent's own overflow series add one row per agent.
ORDER BY (workspace_id, event, version, period, bucket, origin, agent, mapKeys(labels), mapValues(labels))
-- The event rollups' retention (0005).
TTL bucket + INTERVAL 90 DAY DELETE WHERE period = 'minute',
    bucket + INTERVAL 400 DAY DELETE WHERE period = 'hour'
SETTINGS non_replicated_deduplication_window = 10000;

-- Column order and names match series_rollups: a materialized view writes by position.
-- Columns of logs are qualified because an alias (`value`, `min`) would shadow them otherwise.
-- Only rows with labels: an event name without dimensions has its event rollups only.

-- Minutes: ordinary records, then summary rows (0006).

CREATE MATERIALIZED VIEW IF NOT EXISTS series_minute_mv TO series_rollups AS
SELECT
    logs.workspace_id                                    AS workspace_id,
    logs.event                                           AS event,
    logs.dims_version                                    AS version,
    CAST('ingest' AS Enum8('ingest' = 1, 'backfill' = 2)) AS origin,
    CAST('minute' AS Enum8('minute' = 1, 'hour' = 2, 'day' = 3)) AS period,
    toStartOfMinute(toDateTime(logs.occurred_at, 'UTC')) AS bucket,
    logs.agent                                           AS agent,
    logs.labels                                          AS labels,
    anyLast(logs.event_id)                               AS event_id,
    count()                                              AS count,
    sum(logs.value)                                      AS value,
    sum(logs.value * logs.value)                         AS squares,
    min(logs.value)                                      AS min,
    max(logs.value)                                      AS max,
    varSampStableState(logs.value)                       AS variance,
    quantilesTDigestState(0.95, 0.99)(logs.value)        AS quantiles
FROM logs
WHERE notEmpty(logs.labels) AND empty(logs.sketch_means)
GROUP BY workspace_id, event, version, bucket, agent, labels;

CREATE MATERIALIZED VIEW IF NOT EXISTS series_minute_summary_mv TO series_rollups AS
SELECT
    logs.workspace_id                                    AS workspace_id,
    logs.event                                           AS event,
    logs.dims_version                                    AS version,
    CAST('ingest' AS Enum8('ingest' = 1, 'backfill' = 2)) AS origin,
    CAST('minute' AS Enum8('minute' = 1, 'hour' = 2, 'day' = 3)) AS period,
    toStartOfMinute(toDateTime(logs.occurred_at, 'UTC')) AS bucket,
    logs.agent                                           AS agent,
    logs.labels                                          AS labels,
    anyLast(logs.event_id)                               AS event_id,
    sum(logs.weight)                                     AS count,
    sum(logs.value)                                      AS value,
    sum(logs.summary_squares)                            AS squares,
    min(logs.summary_min)                                AS min,
    max(logs.summary_max)                                AS max,
    varSampStableMergeState(CAST(unhex(logs.summary_variance) AS AggregateFunction(varSampStable, Float64))) AS variance,
    CAST(toString(quantilesTDigestWeightedStateArray(0.95, 0.99)(logs.sketch_means, logs.sketch_weights))
         AS AggregateFunction(quantilesTDigest(0.95, 0.99), Float64)) AS quantiles
FROM logs
WHERE notEmpty(logs.labels) AND notEmpty(logs.sketch_means)
GROUP BY workspace_id, event, version, bucket, agent, labels;

-- Hours: ordinary records, then summary rows (0006).

CREATE MATERIALIZED VIEW IF NOT EXISTS series_hour_mv TO series_rollups AS
SELECT
    logs.workspace_id                                    AS workspace_id,
    logs.event                                           AS event,
    logs.dims_version                                    AS version,
    CAST('ingest' AS Enum8('ingest' = 1, 'backfill' = 2)) AS origin,
    CAST('hour' AS Enum8('minute' = 1, 'hour' = 2, 'day' = 3)) AS period,
    toStartOfHour(toDateTime(logs.occurred_at, 'UTC')) AS bucket,
    logs.agent                                           AS agent,
    logs.labels                                          AS labels,
    anyLast(logs.event_id)                               AS event_id,
    count()                                              AS count,
    sum(logs.value)                                      AS value,
    sum(logs.value * logs.value)                         AS squares,
    min(logs.value)                                      AS min,
    max(logs.value)                                      AS max,
    varSampStableState(logs.value)                       AS variance,
    quantilesTDigestState(0.95, 0.99)(logs.value)        AS quantiles
FROM logs
WHERE notEmpty(logs.labels) AND empty(logs.sketch_means)
GROUP BY workspace_id, event, version, bucket, agent, labels;

CREATE MATERIALIZED VIEW IF NOT EXISTS series_hour_summary_mv TO series_rollups AS
SELECT
    logs.workspace_id                                    AS workspace_id,
    logs.event                                           AS event,
    logs.dims_version                                    AS version,
    CAST('ingest' AS Enum8('ingest' = 1, 'backfill' = 2)) AS origin,
    CAST('hour' AS Enum8('minute' = 1, 'hour' = 2, 'day' = 3)) AS period,
    toStartOfHour(toDateTime(logs.occurred_at, 'UTC')) AS bucket,
    logs.agent                                           AS agent,
    logs.labels                                          AS labels,
    anyLast(logs.event_id)                               AS event_id,
    sum(logs.weight)                                     AS count,
    sum(logs.value)                                      AS value,
    sum(logs.summary_squares)                            AS squares,
    min(logs.summary_min)                                AS min,
    max(logs.summary_max)                                AS max,
    varSampStableMergeState(CAST(unhex(logs.summary_variance) AS AggregateFunction(varSampStable, Float64))) AS variance,
    CAST(toString(quantilesTDigestWeightedStateArray(0.95, 0.99)(logs.sketch_means, logs.sketch_weights))
         AS AggregateFunction(quantilesTDigest(0.95, 0.99), Float64)) AS quantiles
FROM logs
WHERE notEmpty(logs.labels) AND notEmpty(logs.sketch_means)
GROUP BY workspace_id, event, version, bucket, agent, labels;

-- Days: ordinary records, then summary rows (0006).

CREATE MATERIALIZED VIEW IF NOT EXISTS series_day_mv TO series_rollups AS
SELECT
    logs.workspace_id                                    AS workspace_id,
    logs.event                                           AS event,
    logs.dims_version                                    AS version,
    CAST('ingest' AS Enum8('ingest' = 1, 'backfill' = 2)) AS origin,
    CAST('day' AS Enum8('minute' = 1, 'hour' = 2, 'day' = 3)) AS period,
    logs.day_start AS bucket,
    logs.agent                                           AS agent,
    logs.labels                                          AS labels,
    anyLast(logs.event_id)                               AS event_id,
    count()                                              AS count,
    sum(logs.value)                                      AS value,
    sum(logs.value * logs.value)                         AS squares,
    min(logs.value)                                      AS min,
    max(logs.value)                                      AS max,
    varSampStableState(logs.value)                       AS variance,
    quantilesTDigestState(0.95, 0.99)(logs.value)        AS quantiles
FROM logs
WHERE notEmpty(logs.labels) AND empty(logs.sketch_means)
GROUP BY workspace_id, event, version, bucket, agent, labels;

CREATE MATERIALIZED VIEW IF NOT EXISTS series_day_summary_mv TO series_rollups AS
SELECT
    logs.workspace_id                                    AS workspace_id,
    logs.event                                           AS event,
    logs.dims_version                                    AS version,
    CAST('ingest' AS Enum8('ingest' = 1, 'backfill' = 2)) AS origin,
    CAST('day' AS Enum8('minute' = 1, 'hour' = 2, 'day' = 3)) AS period,
    logs.day_start AS bucket,
    logs.agent                                           AS agent,
    logs.labels                                          AS labels,
    anyLast(logs.event_id)                               AS event_id,
    sum(logs.weight)                                     AS count,
    sum(logs.value)                                      AS value,
    sum(logs.summary_squares)                            AS squares,
    min(logs.summary_min)                                AS min,
    max(logs.summary_max)                                AS max,
    varSampStableMergeState(CAST(unhex(logs.summary_variance) AS AggregateFunction(varSampStable, Float64))) AS variance,
    CAST(toString(quantilesTDigestWeightedStateArray(0.95, 0.99)(logs.sketch_means, logs.sketch_weights))
         AS AggregateFunction(quantilesTDigest(0.95, 0.99), Float64)) AS quantiles
FROM logs
WHERE notEmpty(logs.labels) AND notEmpty(logs.sketch_means)
GROUP BY workspace_id, event, version, bucket, agent, labels;

-- Analyst views (docs/fleets.md): one row per series and bucket of the current declaration,
-- every number final. `labels` are the declared keys' values; `agent` is a column of its own.

CREATE OR REPLACE VIEW series_minute AS
SELECT
    r.workspace_id                                          AS workspace_id,
    r.event                                                 AS event,
    r.agent                                                 AS agent,
    r.labels                                                AS labels,
    r.bucket                                                AS bucket,
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
FROM series_rollups AS r
-- The current declaration is the highest version of the name (versions only ever rise).
INNER JOIN (SELECT workspace_id, event, max(version) AS current FROM series_rollups GROUP BY workspace_id, event) AS c
    ON r.workspace_id = c.workspace_id AND r.event = c.event AND r.version = c.current
WHERE r.period = 'minute'
GROUP BY workspace_id, event, agent, labels, bucket;

CREATE OR REPLACE VIEW series_hour AS
SELECT
    r.workspace_id                                          AS workspace_id,
    r.event                                                 AS event,
    r.agent                                                 AS agent,
    r.labels                                                AS labels,
    r.bucket                                                AS bucket,
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
FROM series_rollups AS r
-- The current declaration is the highest version of the name (versions only ever rise).
INNER JOIN (SELECT workspace_id, event, max(version) AS current FROM series_rollups GROUP BY workspace_id, event) AS c
    ON r.workspace_id = c.workspace_id AND r.event = c.event AND r.version = c.current
WHERE r.period = 'hour'
GROUP BY workspace_id, event, agent, labels, bucket;

CREATE OR REPLACE VIEW series_day AS
SELECT
    r.workspace_id                                          AS workspace_id,
    r.event                                                 AS event,
    r.agent                                                 AS agent,
    r.labels                                                AS labels,
    r.bucket                                                AS bucket,
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
FROM series_rollups AS r
-- The current declaration is the highest version of the name (versions only ever rise).
INNER JOIN (SELECT workspace_id, event, max(version) AS current FROM series_rollups GROUP BY workspace_id, event) AS c
    ON r.workspace_id = c.workspace_id AND r.event = c.event AND r.version = c.current
WHERE r.period = 'day'
GROUP BY workspace_id, event, agent, labels, bucket;
