-- Policies (monitor rules), the alerts they raise, and the outbox of alert notifications.
-- New tables name the tenant column workspace_id; it holds a workspaces.user_id.

CREATE TABLE IF NOT EXISTS policies (
  policy_id    uuid PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces (user_id) ON DELETE CASCADE,
  event_id     uuid NOT NULL REFERENCES event_definitions (event_id) ON DELETE CASCADE,
  title        text NOT NULL,
  description  text NOT NULL DEFAULT '',
  -- A routing label chosen by the user; unrelated to a destination's channel type.
  channel      text NOT NULL DEFAULT 'default',
  period       text NOT NULL CHECK (period IN ('minute', 'hour', 'day')),
  aggregate    text NOT NULL CHECK (aggregate IN ('sum', 'count', 'average', 'min', 'max', 'p95_est', 'p99_est')),
  condition    text NOT NULL CHECK (condition IN ('gt', 'lt', 'eq', 'gte', 'lte')),
  threshold    double precision NOT NULL,
  severity     text NOT NULL CHECK (severity IN ('info', 'warning', 'error', 'critical')),
  enabled      boolean NOT NULL DEFAULT true,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);

-- Lists are newest first per workspace.
CREATE INDEX IF NOT EXISTS policies_workspace_created_idx ON policies (workspace_id, created_at DESC, policy_id DESC);
-- The evaluation worker reads the enabled policies of every workspace, grouped by period.
CREATE INDEX IF NOT EXISTS policies_enabled_idx ON policies (period, event_id) WHERE enabled;

-- An alert copies the rule and the stream context it was raised under, so it still reads
-- right after the policy or the event definition is edited.
CREATE TABLE IF NOT EXISTS alerts (
  alert_id        uuid PRIMARY KEY,
  workspace_id    text NOT NULL REFERENCES workspaces (user_id) ON DELETE CASCADE,
  policy_id       uuid NOT NULL,
  event_id        uuid NOT NULL,
  agent           text NOT NULL,
  event           text NOT NULL,
  title           text NOT NULL,
  channel         text NOT NULL,
  period          text NOT NULL,
  aggregate       text NOT NULL,
  condition       text NOT NULL,
  threshold       double precision NOT NULL,
  severity        text NOT NULL,
  value           double precision,
  count           bigint NOT NULL DEFAULT 0,
  min             double precision,
  max             double precision,
  -- The bucket whose evaluation last raised or updated the alert.
  bucket_start    timestamptz NOT NULL,
  bucket_end      timestamptz NOT NULL,
  status          text NOT NULL CHECK (status IN ('triggered', 'acknowledged', 'resolved', 'archived')),
  triggered_at    timestamptz NOT NULL DEFAULT now(),
  acknowledged_at timestamptz,
  resolved_at     timestamptz,
  archived_at     timestamptz,
  -- When the first notification of this alert was delivered.
  alerted_at      timestamptz,
  updated_at      timestamptz NOT NULL DEFAULT now()
);

-- At most one open alert per policy, whatever number of workers race to raise one.
CREATE UNIQUE INDEX IF NOT EXISTS alerts_one_open_per_policy ON alerts (policy_id) WHERE status IN ('triggered', 'acknowledged');
CREATE INDEX IF NOT EXISTS alerts_workspace_triggered_idx ON alerts (workspace_id, triggered_at DESC, alert_id DESC);

-- The outbox: every alert transition that must notify writes one row here, in the same
-- transaction as the transition. The delivery worker turns each row into delivery attempts
-- (one per matching destination) and marks it dispatched.
CREATE TABLE IF NOT EXISTS alert_notifications (
  notification_id uuid PRIMARY KEY,
  workspace_id    text NOT NULL REFERENCES workspaces (user_id) ON DELETE CASCADE,
  alert_id        uuid NOT NULL REFERENCES alerts (alert_id) ON DELETE CASCADE,
  policy_id       uuid NOT NULL,
  type            text NOT NULL CHECK (type IN ('alert.triggered', 'alert.resolved')),
  -- The alert object as the API shows it, at the moment of the transition.
  alert           jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  dispatched_at   timestamptz
);

CREATE INDEX IF NOT EXISTS alert_notifications_pending_idx ON alert_notifications (created_at) WHERE dispatched_at IS NULL;
