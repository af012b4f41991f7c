-- Escalation steps that page people and the people on call in schedules (docs/oncall.md).
-- Steps keep living in escalation_policies.steps (jsonb): a step gains "schedule_ids" and
-- "person_ids" (a step stored before reads them as []), so no row is rewritten.

-- "Which escalation policies page this person / schedule" (the 409 of their deletes) is a
-- containment test on the steps (steps @> '[{"person_ids": [id]}]'); jsonb_path_ops keeps the index small.
CREATE INDEX IF NOT EXISTS escalation_policies_steps_idx ON escalation_policies USING gin (steps jsonb_path_ops);

-- A step that finds no one on call in a schedule records an attempt with no destination:
-- status no_one_on_call, never sent. Every other attempt still names its destination.
ALTER TABLE delivery_attempts ALTER COLUMN destination_id DROP NOT NULL;
ALTER TABLE delivery_attempts DROP CONSTRAINT IF EXISTS delivery_attempts_status_check;
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_status_check
  CHECK (status IN ('pending', 'delivered', 'failed', 'exhausted', 'silenced', 'interrupted', 'no_one_on_call', 'inhibited'));
ALTER TABLE delivery_attempts DROP CONSTRAINT IF EXISTS delivery_attempts_destination_check;
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_destination_check
  CHECK (destination_id IS NOT NULL OR status = 'no_one_on_call');
