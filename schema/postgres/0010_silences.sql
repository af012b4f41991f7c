-- Silences and recurring maintenance windows (issue 17). While a silence covers an alert's
-- policy, the alert's notifications are recorded as silenced attempts and not sent.

CREATE TABLE IF NOT EXISTS silences (
  silence_id   uuid PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces (user_id) ON DELETE CASCADE,
  -- NULL: every policy of the workspace.
  policy_ids   uuid[],
  -- Without a recurrence the silence covers [starts_at, ends_at); with one, the recurring
  -- local windows that fall between them.
  starts_at    timestamptz NOT NULL,
  ends_at      timestamptz NOT NULL CHECK (ends_at > starts_at),
  comment      text NOT NULL DEFAULT '',
  -- {"timezone": IANA name, "days": ["mon", …], "start": "HH:MM", "end": "HH:MM"}, or NULL.
  recurrence   jsonb,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);

-- Lists are newest first per workspace; dispatch reads the silences of a workspace that have not ended.
CREATE INDEX IF NOT EXISTS silences_workspace_created_idx ON silences (workspace_id, created_at DESC, silence_id DESC);
CREATE INDEX IF NOT EXISTS silences_workspace_ends_idx ON silences (workspace_id, ends_at);

-- An alert.triggered notification that was silenced is held until no silence covers its
-- policy any more; then, if the alert is still open, it is notified once (a new outbox row).
ALTER TABLE alert_notifications ADD COLUMN IF NOT EXISTS held_since timestamptz;
CREATE INDEX IF NOT EXISTS alert_notifications_held_idx ON alert_notifications (notification_id) WHERE held_since IS NOT NULL;

-- A notification that a silence covered is recorded as an attempt with status silenced.
ALTER TABLE delivery_attempts DROP CONSTRAINT IF EXISTS delivery_attempts_status_check;
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_status_check
  CHECK (status IN ('pending', 'delivered', 'failed', 'exhausted', 'silenced'));
