-- Evaluation driven by inserted records reads the enabled policies of a few events at a time
-- (src/evaluation/targets.ts); policies_enabled_idx leads with period, so it cannot find them.
CREATE INDEX IF NOT EXISTS policies_enabled_event_idx ON policies (event_id) WHERE enabled;
