-- rollup_minute_v: the minute rollup with every number final, for plain SQL. One row per bucket.
CREATE VIEW IF NOT EXISTS rollup_minute_v AS
SELECT
    rollup_minute.workspace_id                                          AS workspace_id,
    rollup_minute.event_id                                              AS event_id,
    rollup_minute.bucket                                                AS bucket,
    anyLast(rollup_minute.agent)                                        AS agent,
    anyLast(rollup_minute.event)                                        AS event,
    sum(rollup_minute.count)                                            AS count,
    sum(rollup_minute.value)                                            AS value,
    sum(rollup_minute.squares)                                          AS squares,
    min(rollup_minute.min)                                              AS min,
    max(rollup_minute.max)                                              AS max,
    value / count                                                    AS mean,
    if(count < 2, 0, sqrt(varSampStableMerge(rollup_minute.variance)))  AS stddev,
    quantilesTDigestMerge(0.95, 0.99)(rollup_minute.quantiles)          AS quantiles,
    quantiles[1]                                                     AS p95,
    quantiles[2]                                                     AS p99
FROM rollup_minute
GROUP BY workspace_id, event_id, bucket;

-- rollup_hour_v: the hour rollup with every number final, for plain SQL. One row per bucket.
CREATE VIEW IF NOT EXISTS rollup_hour_v AS
SELECT
    rollup_hour.workspace_id                                          AS workspace_id,
    rollup_hour.event_id                                              AS event_id,
    rollup_hour.bucket                                                AS bucket,
    anyLast(rollup_hour.agent)                                        AS agent,
    anyLast(rollup_hour.event)                                        AS event,
    sum(rollup_hour.count)                                            AS count,
    sum(rollup_hour.value)                                            AS value,
    sum(rollup_hour.squares)                                          AS squares,
    min(rollup_hour.min)                                              AS min,
    max(rollup_hour.max)                                              AS max,
    value / count                                                    AS mean,
    if(count < 2, 0, sqrt(varSampStableMerge(rollup_hour.variance)))  AS stddev,
    quantilesTDigestMerge(0.95, 0.99)(rollup_hour.quantiles)          AS quantiles,
    quantiles[1]                                                     AS p95,
    quantiles[2]                                                     AS p99
FROM rollup_hour
GROUP BY workspace_id, event_id, bucket;

-- rollup_day_v: the day rollup with every number final, for plain SQL. One row per bucket.
CREATE VIEW IF NOT EXISTS rollup_day_v AS
SELECT
    rollup_day.workspace_id                                          AS workspace_id,
    rollup_day.event_id                                              AS event_id,
    rollup_day.bucket                                                AS bucket,
    anyLast(rollup_day.agent)                                        AS agent,
    anyLast(rollup_day.event)                                        AS event,
    sum(rollup_day.count)                                            AS count,
    sum(rollup_day.value)                                            AS value,
    sum(rollup_day.squares)                                          AS squares,
    min(rollup_day.min)                                              AS min,
    max(rollup_day.max)                                              AS max,
    value / count                                                    AS mean,
    if(count < 2, 0, sqrt(varSampStableMerge(rollup_day.variance)))  AS stddev,
    quantilesTDigestMerge(0.95, 0.99)(rollup_day.quantiles)          AS quantiles,
    quantiles[1]                                                     AS p95,
    quantiles[2]                                                     AS p99
FROM rollup_day
GROUP BY workspace_id, event_id, bucket;
