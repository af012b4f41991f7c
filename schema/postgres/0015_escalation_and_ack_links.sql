-- Escalation policies and acknowledge links (issue 30, DECISIONS L).

CREATE TABLE IF NOT EXISTS escalation_policies (
  escalation_policy_id uuid PRIMARY KEY,
  workspace_id         text NOT NULL REFERENCES workspaces (user_id) ON DELETE CASCADE,
  name                 text NOT NULL,
  -- [{"after_minutes": 1–1440, "destination_ids": [uuid, …]}, …], 1–10 steps.
  steps                jsonb NOT NULL,
  repeat               integer NOT NULL CHECK (repeat BETWEEN 0 AND 10),
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now()
);

-- Lists are newest first per workspace.
CREATE INDEX IF NOT EXISTS escalation_policies_workspace_created_idx
  ON escalation_policies (workspace_id, created_at DESC, escalation_policy_id DESC);

-- A policy names at most one escalation policy; RESTRICT keeps one in use from being deleted
-- (the API answers 409 escalation_policy_in_use before it gets here).
ALTER TABLE policies ADD COLUMN IF NOT EXISTS escalation_policy_id uuid
  REFERENCES escalation_policies (escalation_policy_id) ON DELETE RESTRICT;
CREATE INDEX IF NOT EXISTS policies_escalation_policy_idx ON policies (escalation_policy_id) WHERE escalation_policy_id IS NOT NULL;

-- The escalation chain of one alert: which step is next and when it is due. One row per
-- alert (the primary key), advanced in the same transaction that writes the step's
-- notification, so each (round, step) is written exactly once across restarts and workers.
-- done_at is set when the chain ends (last step sent, or the alert left triggered).
CREATE TABLE IF NOT EXISTS alert_escalations (
  alert_id             uuid PRIMARY KEY REFERENCES alerts (alert_id) ON DELETE CASCADE,
  workspace_id         text NOT NULL,
  escalation_policy_id uuid NOT NULL,
  round                integer NOT NULL,
  step                 integer NOT NULL,
  due_at               timestamptz NOT NULL,
  done_at              timestamptz,
  created_at           timestamptz NOT NULL DEFAULT now()
);
-- The worker's queue: chains still running, by when their next step is due.
CREATE INDEX IF NOT EXISTS alert_escalations_due_idx ON alert_escalations (due_at) WHERE done_at IS NULL;

-- Finding alerts whose chain has not started: triggered alerts (few) of escalating policies.
CREATE INDEX IF NOT EXISTS alerts_triggered_idx ON alerts (policy_id) WHERE status = 'triggered';

-- Acknowledge links: each notification that carries a link has its own random token; only
-- its SHA-256 is kept here. A token acknowledges only its alert, and only while that alert is triggered.
CREATE TABLE IF NOT EXISTS alert_ack_tokens (
  token_hash   bytea PRIMARY KEY,
  alert_id     uuid NOT NULL REFERENCES alerts (alert_id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS alert_ack_tokens_alert_idx ON alert_ack_tokens (alert_id);

-- An escalation step goes to its own destinations, not to those the routing would pick
-- (NULL: routed by scope as before); `escalation` is {"step", "of", "round"}.
ALTER TABLE alert_notifications ADD COLUMN IF NOT EXISTS destination_ids uuid[];

ALTER TABLE alert_notifications DROP CONSTRAINT IF EXISTS alert_notifications_type_check;
ALTER TABLE alert_notifications ADD CONSTRAINT alert_notifications_type_check
  CHECK (type IN ('alert.triggered', 'alert.resolved', 'alert.reminder', 'alert.escalated', 'alert.group'));
ALTER TABLE delivery_attempts DROP CONSTRAINT IF EXISTS delivery_attempts_type_check;
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_type_check
  CHECK (type IN ('alert.triggered', 'alert.resolved', 'alert.reminder', 'alert.escalated', 'alert.group', 'test'));

-- Who acknowledged, for the alert's history: "link" when from the notification's link.
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS acknowledged_via text;
