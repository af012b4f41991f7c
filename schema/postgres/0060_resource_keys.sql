-- Alerting as code (docs/as-code.md): a stable, human key on each kind of configuration object,
-- by which a document (GET /v1.0/config, POST /v1.0/config/plan|apply) names it and other
-- objects refer to it. Optional (NULL: none yet; an export makes one from the name), unique
-- per workspace and kind: the unique indexes below are what a duplicate runs into (409 key_taken).

ALTER TABLE policies ADD COLUMN IF NOT EXISTS key text;
ALTER TABLE destinations ADD COLUMN IF NOT EXISTS key text;
ALTER TABLE escalation_policies ADD COLUMN IF NOT EXISTS key text;
ALTER TABLE alert_sources ADD COLUMN IF NOT EXISTS key text;
ALTER TABLE people ADD COLUMN IF NOT EXISTS key text;
ALTER TABLE schedules ADD COLUMN IF NOT EXISTS key text;
ALTER TABLE silences ADD COLUMN IF NOT EXISTS key text;

CREATE UNIQUE INDEX IF NOT EXISTS policies_key_uidx ON policies (workspace_id, key) WHERE key IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS destinations_key_uidx ON destinations (workspace_id, key) WHERE key IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS escalation_policies_key_uidx ON escalation_policies (workspace_id, key) WHERE key IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS alert_sources_key_uidx ON alert_sources (workspace_id, key) WHERE key IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS people_key_uidx ON people (workspace_id, key) WHERE key IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS schedules_key_uidx ON schedules (workspace_id, key) WHERE key IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS silences_key_uidx ON silences (workspace_id, key) WHERE key IS NOT NULL;

