-- Dimensions (docs/fleets.md, Dimensions): the meta keys an event name's records are broken
-- down by. One row per (workspace, event name); every record of that name, from every agent,
-- then belongs to a series: its agent plus the value of each key.
-- Versions rise across every name and every declaration, a removed and declared again name
-- included, so a higher version is always the later declaration.
CREATE SEQUENCE IF NOT EXISTS dimensions_version_seq;

CREATE TABLE IF NOT EXISTS dimensions (
  workspace_id     text NOT NULL REFERENCES workspaces (user_id) ON DELETE CASCADE,
  -- The records' event name (as in event_definitions.event).
  event            text NOT NULL,
  -- 0–8 distinct top-level meta keys, in the order declared.
  keys             text[] NOT NULL,
  -- Raised by every PUT: series rollup rows carry the version their labels were made under,
  -- and reads take only the current one (the backfill's cut, docs/fleets.md).
  version          bigint NOT NULL DEFAULT nextval('dimensions_version_seq'),
  -- The last time a writer counted a record in an overflow series (null: never).
  overflowed_at    timestamptz,
  backfill_status  text NOT NULL DEFAULT 'done' CHECK (backfill_status IN ('running', 'done')),
  backfill_from    timestamptz,
  backfill_to      timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, event)
);

-- Lists are newest first per workspace.
CREATE INDEX IF NOT EXISTS dimensions_workspace_created_idx ON dimensions (workspace_id, created_at DESC, event DESC);
