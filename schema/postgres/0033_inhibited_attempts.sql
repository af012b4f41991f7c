-- Inhibition (docs/alertmanager.md): a notification of a received alert that an inhibition
-- rule of its source suppresses is recorded as an attempt with status inhibited, never sent;
-- its alert.triggered is held (as a silenced one) and notified once the inhibition ends.
-- The list is the whole one, 0041's no_one_on_call included, and 0041 lists inhibited too:
-- whichever of the two runs last (0041 first on a database that had it before this one),
-- the constraint allows both.
ALTER TABLE delivery_attempts DROP CONSTRAINT IF EXISTS delivery_attempts_status_check;
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_status_check
  CHECK (status IN ('pending', 'delivered', 'failed', 'exhausted', 'silenced', 'interrupted', 'no_one_on_call', 'inhibited'));
