-- On-call schedules (docs/oncall.md): people, schedules of rotating layers, overrides.

CREATE TABLE IF NOT EXISTS people (
  person_id       uuid PRIMARY KEY,
  workspace_id    text NOT NULL REFERENCES workspaces (user_id) ON DELETE CASCADE,
  name            text NOT NULL,
  timezone        text NOT NULL,
  -- The workspace's destinations that reach this person (1–10), in order.
  destination_ids uuid[] NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS people_workspace_created_idx ON people (workspace_id, created_at DESC, person_id DESC);

CREATE TABLE IF NOT EXISTS schedules (
  schedule_id     uuid PRIMARY KEY,
  workspace_id    text NOT NULL REFERENCES workspaces (user_id) ON DELETE CASCADE,
  name            text NOT NULL,
  timezone        text NOT NULL,
  -- [{"name", "start": ISO, "rotation": {"type", "length", "handoff"}, "members": [person_id, …], "restrict_to"}], 1–5.
  layers          jsonb NOT NULL,
  -- Every person the layers name, for "who names this person" without reading the layers.
  member_ids      uuid[] NOT NULL,
  notify_handoffs boolean NOT NULL DEFAULT false,
  -- The calendar feed's token; compared after hashing, in constant time.
  ical_token      text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS schedules_workspace_created_idx ON schedules (workspace_id, created_at DESC, schedule_id DESC);
CREATE INDEX IF NOT EXISTS schedules_member_ids_idx ON schedules USING gin (member_ids);

-- Overrides of a schedule never overlap one another (checked under the schedule's row lock).
CREATE TABLE IF NOT EXISTS schedule_overrides (
  override_id  uuid PRIMARY KEY,
  schedule_id  uuid NOT NULL REFERENCES schedules (schedule_id) ON DELETE CASCADE,
  -- A person named by an override that has not ended cannot be deleted (409 person_in_use);
  -- the overrides of a deleted person that have ended go with them.
  person_id    uuid NOT NULL REFERENCES people (person_id) ON DELETE CASCADE,
  starts_at    timestamptz NOT NULL,
  ends_at      timestamptz NOT NULL CHECK (ends_at > starts_at),
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS schedule_overrides_schedule_idx ON schedule_overrides (schedule_id, starts_at);
CREATE INDEX IF NOT EXISTS schedule_overrides_person_idx ON schedule_overrides (person_id, ends_at);
