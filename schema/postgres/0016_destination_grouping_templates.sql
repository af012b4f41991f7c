-- Grouping and message templates per destination (docs/api.md, Grouping; Message templates).

-- 0 = each notification its own message; N > 0 = notifications of one type within N seconds of
-- the first are held and sent together as one alert.group message at the end of the window.
ALTER TABLE destinations ADD COLUMN IF NOT EXISTS group_window_seconds integer NOT NULL DEFAULT 0
  CHECK (group_window_seconds BETWEEN 0 AND 3600);
-- Mustache templates, checked when written; null = the built-in message.
ALTER TABLE destinations ADD COLUMN IF NOT EXISTS title_template text;
ALTER TABLE destinations ADD COLUMN IF NOT EXISTS message_template text;
ALTER TABLE destinations ADD COLUMN IF NOT EXISTS body_template text;

-- One grouping window of one destination and one notification type. The notification that
-- opened it was sent at once; those that came within it are held (their delivery attempts
-- carry group_id, pending with no due time, so the delivery worker never claims them one by
-- one) and sent as one message when the window ends. A group is a send of its own: it has an
-- attempt number and a due time, retried on the delivery schedule, and each try's outcome is
-- written to the attempts of its members. Held in Postgres, a restart in the middle of a
-- window loses and doubles nothing.
CREATE TABLE IF NOT EXISTS notification_groups (
  group_id        uuid PRIMARY KEY,
  workspace_id    text NOT NULL REFERENCES workspaces (user_id) ON DELETE CASCADE,
  destination_id  uuid NOT NULL REFERENCES destinations (destination_id) ON DELETE CASCADE,
  group_type      text NOT NULL CHECK (group_type IN ('alert.triggered', 'alert.resolved')),
  window_started_at timestamptz NOT NULL,
  window_ends_at  timestamptz NOT NULL,
  -- pending: to send (once next_attempt_at has come; a claim pushes it ahead by a lease);
  -- done: sent, given up, or ended with nothing held.
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done')),
  attempt         integer NOT NULL DEFAULT 1 CHECK (attempt >= 1),
  next_attempt_at timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now()
);

-- The open window of a destination and type (dispatch looks it up for each batch).
CREATE INDEX IF NOT EXISTS notification_groups_window_idx ON notification_groups (destination_id, group_type, window_ends_at DESC);
-- The flush task's queue: groups whose window has ended, oldest first.
CREATE INDEX IF NOT EXISTS notification_groups_due_idx ON notification_groups (next_attempt_at) WHERE status = 'pending';

ALTER TABLE delivery_attempts ADD COLUMN IF NOT EXISTS group_id uuid REFERENCES notification_groups (group_id) ON DELETE SET NULL;
-- The members of a group, at its current attempt.
CREATE INDEX IF NOT EXISTS delivery_attempts_group_idx ON delivery_attempts (group_id, attempt) WHERE group_id IS NOT NULL;
