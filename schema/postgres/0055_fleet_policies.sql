-- Fleet policies (docs/api.md, Fleet policies): a policy watches either one event definition
-- (event_id, as before) or a records' event name across the agents that send it (event),
-- with agent patterns, a filter on label values, the labels it groups by, and the timezone
-- its day buckets and day comparisons are counted in. Exactly one of event_id and event.
ALTER TABLE policies ALTER COLUMN event_id DROP NOT NULL;
ALTER TABLE policies ADD COLUMN IF NOT EXISTS event text;
-- Agent patterns (`*` matches any run of characters); every agent by default.
ALTER TABLE policies ADD COLUMN IF NOT EXISTS agents text[] NOT NULL DEFAULT ARRAY['*'];
-- {"key": "value" | ["v1", "v2"]}: a record's group must have one of the values of each key.
ALTER TABLE policies ADD COLUMN IF NOT EXISTS filter jsonb NOT NULL DEFAULT '{}'::jsonb;
-- The label names each group is told apart by; none = the whole fleet as one group.
ALTER TABLE policies ADD COLUMN IF NOT EXISTS group_by text[] NOT NULL DEFAULT '{}';
-- A fleet policy's day buckets and day comparisons; null for a policy on one event
-- definition, which follows the definition's timezone.
ALTER TABLE policies ADD COLUMN IF NOT EXISTS timezone text;
ALTER TABLE policies DROP CONSTRAINT IF EXISTS policies_one_subject;
ALTER TABLE policies ADD CONSTRAINT policies_one_subject CHECK ((event_id IS NULL) <> (event IS NULL));

-- Evaluation driven by inserted records finds the fleet policies of an event name.
CREATE INDEX IF NOT EXISTS policies_enabled_fleet_idx ON policies (workspace_id, event) WHERE enabled AND event IS NOT NULL;
