-- Alerting as code (docs/as-code.md, Drift): the last apply of a document to each workspace.
-- `managed` holds, by kind, the ids of every object that document had; an object among them
-- whose updated_at is later than applied_at (the apply's transaction time, which is also the
-- updated_at of every object it wrote) was changed in the console or through the API since,
-- and the next apply will overwrite it. One row per workspace, replaced by every apply.
CREATE TABLE IF NOT EXISTS config_applies (
  workspace_id text PRIMARY KEY REFERENCES workspaces (user_id) ON DELETE CASCADE,
  applied_at   timestamptz NOT NULL,
  -- {"policies": ["<policy_id>", …], "destinations": […], …}
  managed      jsonb NOT NULL
);
