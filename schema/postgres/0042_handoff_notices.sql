-- Handoff notices (docs/oncall.md): with notify_handoffs, the person whose shift starts gets
-- a schedule.handoff notification through their destinations, exactly once per shift start.

-- One row per handoff noticed, written in the transaction that writes its notification: the
-- key refuses a second notice of the same shift start, whatever ran it.
CREATE TABLE IF NOT EXISTS schedule_handoffs (
  handoff_id   uuid PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces (user_id) ON DELETE CASCADE,
  schedule_id  uuid NOT NULL REFERENCES schedules (schedule_id) ON DELETE CASCADE,
  person_id    uuid NOT NULL,
  starts_at    timestamptz NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (schedule_id, starts_at, person_id)
);

-- Up to when shift starts have been looked at: one row, locked by the worker that advances
-- it (SKIP LOCKED: another worker skips the cycle), moved in the same transaction as the notices.
CREATE TABLE IF NOT EXISTS handoff_cursor (
  id         integer PRIMARY KEY CHECK (id = 1),
  covered_to timestamptz NOT NULL
);

-- The outbox carries handoff notices too: no alert and no policy, the notice's destinations named.
ALTER TABLE alert_notifications ALTER COLUMN alert_id DROP NOT NULL;
ALTER TABLE alert_notifications ALTER COLUMN policy_id DROP NOT NULL;
ALTER TABLE alert_notifications DROP CONSTRAINT IF EXISTS alert_notifications_type_check;
ALTER TABLE alert_notifications ADD CONSTRAINT alert_notifications_type_check
  CHECK (type IN ('alert.triggered', 'alert.resolved', 'alert.reminder', 'alert.escalated', 'alert.group', 'schedule.handoff'));
ALTER TABLE alert_notifications DROP CONSTRAINT IF EXISTS alert_notifications_alert_check;
ALTER TABLE alert_notifications ADD CONSTRAINT alert_notifications_alert_check
  -- A received alert's notification names its alert source instead of a policy (0031, 0035).
  CHECK (type = 'schedule.handoff' OR (alert_id IS NOT NULL AND (policy_id IS NOT NULL OR alert_source_id IS NOT NULL)));

-- A handoff notice's attempts: kind handoff, filed under the handoff's id (as a test send under its synthetic alert id).
ALTER TABLE delivery_attempts DROP CONSTRAINT IF EXISTS delivery_attempts_kind_check;
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_kind_check CHECK (kind IN ('alert', 'test', 'handoff'));
ALTER TABLE delivery_attempts DROP CONSTRAINT IF EXISTS delivery_attempts_type_check;
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_type_check
  CHECK (type IN ('alert.triggered', 'alert.resolved', 'alert.reminder', 'alert.escalated', 'alert.group', 'schedule.handoff', 'test'));
