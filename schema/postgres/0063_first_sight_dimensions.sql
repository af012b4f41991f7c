-- Dimensions declared by OTLP or remote-write on a metric's first points (docs/fleets.md) and
-- written since by no PUT and no applied document: they stay outside alerting as code
-- (docs/as-code.md, Dimensions): not exported, not in a plan, never pruned. A PUT or an apply
-- that declares the name takes it over (false). Rows from before this column: false, as before.
ALTER TABLE dimensions ADD COLUMN IF NOT EXISTS on_first_sight boolean NOT NULL DEFAULT false;
