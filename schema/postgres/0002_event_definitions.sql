-- Event definitions: what an (agent, event) pair of a workspace measures. Logs create them
-- on first sight; the REST API edits them. ClickHouse rows refer to them by event_id.
CREATE TABLE IF NOT EXISTS event_definitions (
  event_id    uuid PRIMARY KEY,
  user_id     text NOT NULL REFERENCES workspaces (user_id) ON DELETE CASCADE,
  agent       text NOT NULL,
  event       text NOT NULL,
  title       text,
  description text NOT NULL DEFAULT '',
  unit        text NOT NULL DEFAULT '',
  -- IANA name; day rollups and day-or-longer analytics windows follow it.
  timezone    text NOT NULL DEFAULT 'UTC',
  public      boolean NOT NULL DEFAULT false,
  share_token text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  -- One definition per pair: two batches racing to create the same pair make one row.
  CONSTRAINT event_definitions_pair_key UNIQUE (user_id, agent, event)
);

-- Lists are newest first per workspace.
CREATE INDEX IF NOT EXISTS event_definitions_user_created_idx
  ON event_definitions (user_id, created_at DESC, event_id DESC);
