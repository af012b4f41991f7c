-- An attempt whose send was cut off (the process stopped during it) is closed as
-- interrupted at recovery, and the re-send gets a row of its own: every send is one row.
-- claimed_at: when a worker took the pending attempt to send it; a pending row whose lease
-- has run out with claimed_at set was being sent by a process that stopped.
ALTER TABLE delivery_attempts ADD COLUMN IF NOT EXISTS claimed_at timestamptz;

ALTER TABLE delivery_attempts DROP CONSTRAINT IF EXISTS delivery_attempts_status_check;
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_status_check
  CHECK (status IN ('pending', 'delivered', 'failed', 'exhausted', 'silenced', 'interrupted'));
