-- Points that stand for many observations (issue 31): an OpenTelemetry histogram point
-- carries the count, sum, min and max of all its observations and their distribution in
-- buckets. Such a point is one row of `logs` (a "summary row"), with the columns below filled;
-- every other row is an ordinary record, exactly as before. Ordinary records keep feeding the
-- rollups through the views of 0005, now restricted to ordinary rows (their figures are built
-- by the very same expressions, so stay exact); summary rows feed the same `rollups` rows
-- through views of their own:
--   count += weight, value += value (the observations' sum), squares += summary_squares,
--   min/max over summary_min/summary_max, the Welford state of the observations as the
--   client sent it (summary_variance, estimated from bucket midpoints around the exact mean),
--   and the t-digest fed with each bucket's midpoint weighted by the bucket's count, so a
--   p95/p99 falls within the bounds of the bucket holding it.
--
-- Upgrading: the columns are added with defaults, so every existing row reads as an ordinary
-- record (weight 1, no sketch) and nothing is rewritten; the rollups are untouched. The views
-- are replaced one period at a time; as with 0005, upgrade with ingest stopped (the service
-- migrates before it accepts logs). Every statement may run again.

-- Observations the row stands for: 1 for an ordinary record; a histogram point's count.
ALTER TABLE logs ADD COLUMN IF NOT EXISTS weight UInt64 DEFAULT 1;
-- Summary rows only (0 elsewhere): the observations' sum of squares, min, max.
ALTER TABLE logs ADD COLUMN IF NOT EXISTS summary_squares Float64 DEFAULT 0;
ALTER TABLE logs ADD COLUMN IF NOT EXISTS summary_min Float64 DEFAULT 0;
ALTER TABLE logs ADD COLUMN IF NOT EXISTS summary_max Float64 DEFAULT 0;
-- Summary rows only ('' elsewhere): the varSampStable state (count, mean, M2) in hex, as the
-- service wrote it (src/ingest/weightedRecord.ts); JSON rows cannot carry raw bytes.
ALTER TABLE logs ADD COLUMN IF NOT EXISTS summary_variance String DEFAULT '' CODEC(ZSTD(1));
-- Summary rows only (empty elsewhere, which is what marks an ordinary record): bucket
-- midpoints and the observations in each, for the quantile sketch.
ALTER TABLE logs ADD COLUMN IF NOT EXISTS sketch_means Array(Float64) DEFAULT [] CODEC(ZSTD(1));
ALTER TABLE logs ADD COLUMN IF NOT EXISTS sketch_weights Array(UInt64) DEFAULT [] CODEC(ZSTD(1));

-- Minutes: ordinary records as in 0005, now only they; then summary rows.
DROP VIEW IF EXISTS rollups_minute_mv;

-- Column order and names match rollups: a materialized view writes by position.
-- Columns of logs are qualified because an alias (`value`, `min`) would shadow them otherwise.
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
WHERE empty(logs.sketch_means)
GROUP BY workspace_id, event_id, bucket;

-- The t-digest of weighted bucket midpoints is the same structure as quantilesTDigest's (the
-- unweighted function adds each value with weight 1), so its state is written as one.
CREATE MATERIALIZED VIEW IF NOT EXISTS rollups_minute_summary_mv TO rollups AS
SELECT
    logs.workspace_id                                    AS workspace_id,
    logs.event_id                                        AS event_id,
    CAST('minute' AS Enum8('minute' = 1, 'hour' = 2, 'day' = 3)) AS period,
    toStartOfMinute(toDateTime(logs.occurred_at, 'UTC')) AS bucket,
    anyLast(logs.agent)                                  AS agent,
    anyLast(logs.event)                                  AS event,
    sum(logs.weight)                                     AS count,
    sum(logs.value)                                      AS value,
    sum(logs.summary_squares)                            AS squares,
    min(logs.summary_min)                                AS min,
    max(logs.summary_max)                                AS max,
    varSampStableMergeState(CAST(unhex(logs.summary_variance) AS AggregateFunction(varSampStable, Float64))) AS variance,
    CAST(toString(quantilesTDigestWeightedStateArray(0.95, 0.99)(logs.sketch_means, logs.sketch_weights))
         AS AggregateFunction(quantilesTDigest(0.95, 0.99), Float64)) AS quantiles
FROM logs
WHERE notEmpty(logs.sketch_means)
GROUP BY workspace_id, event_id, bucket;

-- Hours: ordinary records as in 0005, now only they; then summary rows.
DROP VIEW IF EXISTS rollups_hour_mv;

-- Column order and names match rollups: a materialized view writes by position.
-- Columns of logs are qualified because an alias (`value`, `min`) would shadow them otherwise.
CREATE MATERIALIZED VIEW IF NOT EXISTS rollups_hour_mv TO rollups AS
SELECT
    logs.workspace_id                                    AS workspace_id,
    logs.event_id                                        AS event_id,
    CAST('hour' AS Enum8('minute' = 1, 'hour' = 2, 'day' = 3)) AS period,
    toStartOfHour(toDateTime(logs.occurred_at, 'UTC')) AS bucket,
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
WHERE empty(logs.sketch_means)
GROUP BY workspace_id, event_id, bucket;

-- The t-digest of weighted bucket midpoints is the same structure as quantilesTDigest's (the
-- unweighted function adds each value with weight 1), so its state is written as one.
CREATE MATERIALIZED VIEW IF NOT EXISTS rollups_hour_summary_mv TO rollups AS
SELECT
    logs.workspace_id                                    AS workspace_id,
    logs.event_id                                        AS event_id,
    CAST('hour' AS Enum8('minute' = 1, 'hour' = 2, 'day' = 3)) AS period,
    toStartOfHour(toDateTime(logs.occurred_at, 'UTC')) AS bucket,
    anyLast(logs.agent)                                  AS agent,
    anyLast(logs.event)                                  AS event,
    sum(logs.weight)                                     AS count,
    sum(logs.value)                                      AS value,
    sum(logs.summary_squares)                            AS squares,
    min(logs.summary_min)                                AS min,
    max(logs.summary_max)                                AS max,
    varSampStableMergeState(CAST(unhex(logs.summary_variance) AS AggregateFunction(varSampStable, Float64))) AS variance,
    CAST(toString(quantilesTDigestWeightedStateArray(0.95, 0.99)(logs.sketch_means, logs.sketch_weights))
         AS AggregateFunction(quantilesTDigest(0.95, 0.99), Float64)) AS quantiles
FROM logs
WHERE notEmpty(logs.sketch_means)
GROUP BY workspace_id, event_id, bucket;

-- Days: ordinary records as in 0005, now only they; then summary rows.
DROP VIEW IF EXISTS rollups_day_mv;

-- Column order and names match rollups: a materialized view writes by position.
-- Columns of logs are qualified because an alias (`value`, `min`) would shadow them otherwise.
CREATE MATERIALIZED VIEW IF NOT EXISTS rollups_day_mv TO rollups AS
SELECT
    logs.workspace_id                                    AS workspace_id,
    logs.event_id                                        AS event_id,
    CAST('day' AS Enum8('minute' = 1, 'hour' = 2, 'day' = 3)) AS period,
    logs.day_start                                   AS bucket,
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
WHERE empty(logs.sketch_means)
GROUP BY workspace_id, event_id, bucket;

-- The t-digest of weighted bucket midpoints is the same structure as quantilesTDigest's (the
-- unweighted function adds each value with weight 1), so its state is written as one.
CREATE MATERIALIZED VIEW IF NOT EXISTS rollups_day_summary_mv TO rollups AS
SELECT
    logs.workspace_id                                    AS workspace_id,
    logs.event_id                                        AS event_id,
    CAST('day' AS Enum8('minute' = 1, 'hour' = 2, 'day' = 3)) AS period,
    logs.day_start                                   AS bucket,
    anyLast(logs.agent)                                  AS agent,
    anyLast(logs.event)                                  AS event,
    sum(logs.weight)                                     AS count,
    sum(logs.value)                                      AS value,
    sum(logs.summary_squares)                            AS squares,
    min(logs.summary_min)                                AS min,
    max(logs.summary_max)                                AS max,
    varSampStableMergeState(CAST(unhex(logs.summary_variance) AS AggregateFunction(varSampStable, Float64))) AS variance,
    CAST(toString(quantilesTDigestWeightedStateArray(0.95, 0.99)(logs.sketch_means, logs.sketch_weights))
         AS AggregateFunction(quantilesTDigest(0.95, 0.99), Float64)) AS quantiles
FROM logs
WHERE notEmpty(logs.sketch_means)
GROUP BY workspace_id, event_id, bucket;
