-- When an event's timezone last changed; NULL: never, it has the timezone it was created with.
-- ClickHouse day rows can be bucketed under an earlier timezone only after a change (by an
-- ingest process that has not seen it yet), so window reads look for such rows only for
-- events whose timezone changed. Events from before this column are counted as changed:
-- their history is not known.
ALTER TABLE event_definitions ADD COLUMN IF NOT EXISTS timezone_changed_at timestamptz;
UPDATE event_definitions SET timezone_changed_at = now() WHERE timezone_changed_at IS NULL;
