-- Alert sources (docs/api.md, Alert sources): a Prometheus, vmalert or Grafana that sends its
-- firing alerts to alertmon as to an Alertmanager, under /alertmanager/<alert_source_id>.

CREATE TABLE IF NOT EXISTS alert_sources (
  alert_source_id         uuid PRIMARY KEY,
  workspace_id            text NOT NULL REFERENCES workspaces (user_id) ON DELETE CASCADE,
  name                    text NOT NULL,
  -- The label whose value gives an alert's severity; default_severity when it has none we know.
  severity_label          text NOT NULL,
  default_severity        text NOT NULL CHECK (default_severity IN ('info', 'warning', 'error', 'critical')),
  -- RESTRICT: an escalation policy a source names is not deleted (the API answers 409
  -- escalation_policy_in_use before it gets here).
  escalation_policy_id    uuid REFERENCES escalation_policies (escalation_policy_id) ON DELETE RESTRICT,
  renotify_minutes        integer CHECK (renotify_minutes BETWEEN 1 AND 10080),
  -- An alert no post has extended for this long resolves.
  resolve_timeout_minutes integer NOT NULL CHECK (resolve_timeout_minutes BETWEEN 1 AND 1440),
  -- [{"source_matchers": [matcher, …], "target_matchers": [matcher, …], "equal": [label name, …]}],
  -- each matcher {"name", "value", "isRegex", "isEqual"} (Alertmanager's API form), parsed and
  -- checked when written; at most 100 rules.
  inhibit_rules           jsonb NOT NULL DEFAULT '[]',
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now()
);

-- Lists are newest first per workspace.
CREATE INDEX IF NOT EXISTS alert_sources_workspace_created_idx
  ON alert_sources (workspace_id, created_at DESC, alert_source_id DESC);
-- Deleting an escalation policy looks for the sources that name it.
CREATE INDEX IF NOT EXISTS alert_sources_escalation_policy_idx
  ON alert_sources (escalation_policy_id) WHERE escalation_policy_id IS NOT NULL;
