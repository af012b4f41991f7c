-- Destinations (where alerts go) and delivery attempts (every send, written before it).

CREATE TABLE IF NOT EXISTS destinations (
  destination_id    uuid PRIMARY KEY,
  workspace_id      text NOT NULL REFERENCES workspaces (user_id) ON DELETE CASCADE,
  channel           text NOT NULL CHECK (channel IN ('email', 'webhook', 'slack', 'discord', 'telegram')),
  -- The full URL or address; responses abbreviate its secret part.
  url               text,
  -- Channel secrets (bot_token, chat_id, authorization); never returned in full.
  credentials       jsonb,
  scope             text NOT NULL CHECK (scope IN ('all', 'policies')),
  policy_ids        uuid[] NOT NULL DEFAULT '{}',
  enabled           boolean NOT NULL DEFAULT true,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  last_delivered_at timestamptz,
  last_error        text
);

-- Lists are newest first per workspace; routing reads the enabled destinations of one workspace.
CREATE INDEX IF NOT EXISTS destinations_workspace_created_idx ON destinations (workspace_id, created_at DESC, destination_id DESC);

-- One row per send. A failed try that will be retried leaves its row `failed` with the
-- time of the retry, and the retry is a new `pending` row (attempt + 1) due at that time,
-- so the queue survives a restart and the history shows every try.
CREATE TABLE IF NOT EXISTS delivery_attempts (
  attempt_id      uuid PRIMARY KEY,
  workspace_id    text NOT NULL REFERENCES workspaces (user_id) ON DELETE CASCADE,
  -- The alert notified; for a test send, the synthetic alert id the test returned.
  alert_id        uuid NOT NULL,
  destination_id  uuid NOT NULL REFERENCES destinations (destination_id) ON DELETE CASCADE,
  -- The outbox row this attempt delivers (null for a test); receivers dedupe on it.
  notification_id uuid REFERENCES alert_notifications (notification_id) ON DELETE CASCADE,
  kind            text NOT NULL CHECK (kind IN ('alert', 'test')),
  type            text NOT NULL CHECK (type IN ('alert.triggered', 'alert.resolved', 'test')),
  channel         text NOT NULL,
  -- Where it went, secrets abbreviated.
  target          text NOT NULL,
  attempt         integer NOT NULL CHECK (attempt >= 1),
  status          text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'exhausted')),
  response_status integer,
  error_message   text,
  -- pending: when the send is due (a claimed row is pushed ahead by a lease, so a worker
  -- that dies mid-send leaves it due again once); failed: when its retry is due.
  next_attempt_at timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);

-- The worker's queue: due pending rows, oldest first.
CREATE INDEX IF NOT EXISTS delivery_attempts_due_idx ON delivery_attempts (next_attempt_at) WHERE status = 'pending';
-- The history read of one alert, newest first.
CREATE INDEX IF NOT EXISTS delivery_attempts_alert_idx ON delivery_attempts (workspace_id, alert_id, created_at DESC, attempt_id DESC);
