-- Silences with Alertmanager matchers (docs/api.md, Silences; docs/alertmanager.md): a silence
-- covers an alert when its policy_ids (if any) name the alert's policy or alert source AND
-- its matchers (if any) all match the alert's labels. Made through /v1.0/silences or a
-- source's Alertmanager API alike.
-- [{"name", "value", "isRegex", "isEqual"}, …] (Alertmanager's API form), parsed and checked when written; NULL: none.
ALTER TABLE silences ADD COLUMN IF NOT EXISTS matchers jsonb;
-- Who made it, as Alertmanager's createdBy ('' when not given).
ALTER TABLE silences ADD COLUMN IF NOT EXISTS created_by text NOT NULL DEFAULT '';
