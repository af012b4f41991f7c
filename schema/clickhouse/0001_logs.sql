-- Raw log records, one row per accepted record. The service writes here only, in group
-- commits; the materialized views of 0002 keep the rollups up to date from each insert.
CREATE TABLE IF NOT EXISTS logs
(
    workspace_id LowCardinality(String),
    event_id     UUID,
    agent        String,
    event        String,
    log_id       UUID,
    value        Float64,
    occurred_at  DateTime64(3, 'UTC'),
    received_at  DateTime64(3, 'UTC'),
    -- Start of occurred_at's local day in the event's timezone at ingest time (a UTC instant).
    -- ClickHouse takes only constant timezones, so the service computes it per record.
    day_start    DateTime('UTC'),
    -- The record's meta as compact JSON text; '' when it had none.
    meta         String CODEC(ZSTD(1)),
    -- Lets the start-up scan for recently accepted log_ids (idempotency window) skip old parts.
    INDEX received_at_minmax received_at TYPE minmax GRANULARITY 1
)
ENGINE = MergeTree
-- Monthly partitions: old months leave by dropping whole parts, and inserts touch one or two.
PARTITION BY toYYYYMM(occurred_at)
-- Every read is one workspace's event over a time range: tenant first, then event, then time.
ORDER BY (workspace_id, event_id, occurred_at)
-- Records are accepted up to 30 days late; 60 days keeps each one at least 30 days.
TTL toDateTime(occurred_at) + INTERVAL 60 DAY
SETTINGS ttl_only_drop_parts = 1;
