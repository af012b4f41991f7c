-- A webhook destination's body format (docs/api.md, What is sent): alertmon's own
-- {"type", "alert"}, or Alertmanager's webhook v4 for receivers made for Alertmanager.
ALTER TABLE destinations ADD COLUMN IF NOT EXISTS format text NOT NULL DEFAULT 'alertmon' CHECK (format IN ('alertmon', 'alertmanager'));
