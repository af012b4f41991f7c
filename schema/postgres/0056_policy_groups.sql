-- The evaluation state of a fleet policy's groups (docs/api.md, Fleet policies): per group
-- the run state a policy on one definition keeps in its own row (policies.breach_run …).
-- A row exists only for a group whose state is not the fresh one: a pending run, an empty
-- run (the group went silent: it is forgotten 24 hours after its last record), an alert
-- covering buckets not yet passed. A group that sends and breaches nothing has no row: it is
-- known from its records in the last judged bucket, read with the buckets due. So a cycle
-- writes rows only where a group's state moves. Written under the policy row's lock, in the
-- transaction that writes the policy's progress, so a restart neither loses nor repeats a run.
CREATE TABLE IF NOT EXISTS policy_groups (
  policy_id         uuid NOT NULL REFERENCES policies (policy_id) ON DELETE CASCADE,
  -- The fingerprint of the group's labels (src/labels): the same as its alerts'.
  group_key         text NOT NULL,
  labels            jsonb NOT NULL,
  -- The agent's event definition, for a policy grouped by agent; null otherwise.
  event_id          uuid,
  breach_run        integer NOT NULL DEFAULT 0,
  breach_started_at timestamptz,
  breach_peak       double precision,
  silent_since      timestamptz,
  alerted_until     timestamptz,
  PRIMARY KEY (policy_id, group_key)
);
