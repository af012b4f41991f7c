-- A received alert's notifications name its alert source, not a policy (0031): the outbox's
-- check (0042) allows either. 0042 spells the same check, so that whichever of the two runs
-- last (0042 first on a database that had it before this one), the constraint is this one.
ALTER TABLE alert_notifications DROP CONSTRAINT IF EXISTS alert_notifications_alert_check;
ALTER TABLE alert_notifications ADD CONSTRAINT alert_notifications_alert_check
  CHECK (type = 'schedule.handoff' OR (alert_id IS NOT NULL AND (policy_id IS NOT NULL OR alert_source_id IS NOT NULL)));
