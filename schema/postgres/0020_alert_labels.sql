-- Every alert carries labels (name → string value, a JSON object): what it is about. An alert
-- of a policy on one event definition is labelled with its agent; a fleet policy's alert with
-- its group's values; an alert received from an Alertmanager client with its own label set.
-- Existing alerts all belong to policies on one event definition.
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS labels jsonb NOT NULL DEFAULT '{}'::jsonb;
UPDATE alerts SET labels = jsonb_build_object('agent', agent) WHERE labels = '{}'::jsonb;

-- A fleet policy's alert of a group whose agent is not one of its keys belongs to no single
-- event definition.
ALTER TABLE alerts ALTER COLUMN event_id DROP NOT NULL;

-- At most one open alert per policy and label set (one per group), whatever number of
-- workers race to raise one. The label set enters the index as the md5 of its canonical
-- jsonb text, so a large label set still fits a btree entry; lookups spell the same
-- expression to use it.
CREATE UNIQUE INDEX IF NOT EXISTS alerts_one_open_per_group ON alerts (policy_id, md5(labels::text)) WHERE status IN ('triggered', 'acknowledged');
DROP INDEX IF EXISTS alerts_one_open_per_policy;
