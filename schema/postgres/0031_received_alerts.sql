-- Alerts received from an Alertmanager client (docs/alertmanager.md): a Prometheus, vmalert or
-- Grafana posts them under /alertmanager/<alert_source_id>/api/v2/alerts. They live in the
-- alerts table beside policy alerts, with the same lifecycle, outbox and deliveries; what only
-- they have is below. A policy alert has these null.
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS alert_source_id uuid;
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS annotations jsonb;
-- Of the labels (src/labels, labelsFingerprint): Alertmanager's fingerprint, 16 hex digits.
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS fingerprint text;
-- The sender's startsAt: a post with another one is a new firing of the label set.
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS starts_at timestamptz;
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS generator_url text;
-- The lease: ends_at is the endsAt the sender gave, else the post's time plus the source's
-- resolve_timeout_minutes, as last written; lease_until is when the lease worker resolves the
-- alert, half a lease past ends_at. A re-post writes the row only when its end passes
-- lease_until (or something else changed), so re-posts of unchanged alerts write nothing.
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS ends_at timestamptz;
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS lease_until timestamptz;
-- Who closed a received alert when not a person: 'sender' (a post with a past endsAt) or
-- 'timeout' (the lease passed). A received alert a person resolved or archived has it null:
-- posts with the same startsAt do not raise it again.
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS closed_by text CHECK (closed_by IN ('sender', 'timeout'));

-- A received alert has no policy, no bucket and no threshold.
ALTER TABLE alerts ALTER COLUMN policy_id DROP NOT NULL;
ALTER TABLE alerts ALTER COLUMN threshold DROP NOT NULL;
ALTER TABLE alerts ALTER COLUMN bucket_start DROP NOT NULL;
ALTER TABLE alerts ALTER COLUMN bucket_end DROP NOT NULL;
ALTER TABLE alerts ALTER COLUMN breaching_since DROP NOT NULL;

-- At most one open alert per source and label set, whatever number of posts race to raise it.
CREATE UNIQUE INDEX IF NOT EXISTS alerts_one_open_per_source_fingerprint ON alerts (alert_source_id, fingerprint)
  WHERE alert_source_id IS NOT NULL AND status IN ('triggered', 'acknowledged');
-- A post finds the latest alert of each label set (a manual resolve holds until a new startsAt).
CREATE INDEX IF NOT EXISTS alerts_source_fingerprint_idx ON alerts (alert_source_id, fingerprint, triggered_at DESC)
  WHERE alert_source_id IS NOT NULL;
-- The lease worker finds the open received alerts whose lease has passed.
CREATE INDEX IF NOT EXISTS alerts_source_lease_idx ON alerts (lease_until)
  WHERE alert_source_id IS NOT NULL AND status IN ('triggered', 'acknowledged');

-- The outbox routes a received alert's notifications by its source (destinations name source
-- ids in policy_ids, as policies).
ALTER TABLE alert_notifications ALTER COLUMN policy_id DROP NOT NULL;
ALTER TABLE alert_notifications ADD COLUMN IF NOT EXISTS alert_source_id uuid;
