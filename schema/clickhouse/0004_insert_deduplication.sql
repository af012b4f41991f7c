-- Insert deduplication (issue 7). One INSERT writes `logs` and, through the materialized
-- views, the three rollups; a failure part-way can leave some of them written. The service
-- gives every insert an insert_deduplication_token and sends a failed one again, identical
-- and with the same token (src/ingest/logWriter.ts): each table skips the block if it holds
-- it already and writes it otherwise. For that, each table keeps the ids of its last 10,000
-- inserted blocks (about 100 s of inserts at the fastest rate measured here, two blocks per
-- insert), far more than the inserts that can run between a failure and its completion.
ALTER TABLE logs MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE rollup_minute MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE rollup_hour MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE rollup_day MODIFY SETTING non_replicated_deduplication_window = 10000;
