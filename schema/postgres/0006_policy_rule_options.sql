-- Rule options of policies (pending runs, hysteresis, empty buckets, comparison with the past,
-- reminders), the evaluation state they need, and what alerts carry for them (issue 16).
-- Every default keeps an existing policy evaluating exactly as before.

-- How many consecutive evaluated buckets must breach before an alert is raised.
ALTER TABLE policies ADD COLUMN IF NOT EXISTS pending_buckets integer NOT NULL DEFAULT 1 CHECK (pending_buckets BETWEEN 1 AND 100);
-- Hysteresis: an open alert resolves only on a value that fails the condition against this.
ALTER TABLE policies ADD COLUMN IF NOT EXISTS recovery_threshold double precision;
-- What an empty bucket means for average, min, max, p95_est and p99_est.
ALTER TABLE policies ADD COLUMN IF NOT EXISTS no_data text NOT NULL DEFAULT 'no_verdict' CHECK (no_data IN ('no_verdict', 'breach', 'ok'));
-- Compare the bucket's aggregate with an earlier bucket's: the threshold is then a percentage.
ALTER TABLE policies ADD COLUMN IF NOT EXISTS compare_to text CHECK (compare_to IN ('previous_bucket', 'previous_1d', 'previous_7d'));
-- A bucket with fewer logs gives no verdict.
ALTER TABLE policies ADD COLUMN IF NOT EXISTS min_count integer NOT NULL DEFAULT 0 CHECK (min_count >= 0);
-- Reminders while an alert stays triggered.
ALTER TABLE policies ADD COLUMN IF NOT EXISTS renotify_minutes integer CHECK (renotify_minutes BETWEEN 1 AND 10080);

-- Evaluation state, kept with evaluated_until and moved in the same statement, so a restart
-- neither loses nor repeats it. The run of consecutive breaching buckets that ends with the
-- last evaluated one, when its first bucket started, and its most extreme value:
ALTER TABLE policies ADD COLUMN IF NOT EXISTS breach_run integer NOT NULL DEFAULT 0;
ALTER TABLE policies ADD COLUMN IF NOT EXISTS breach_started_at timestamptz;
ALTER TABLE policies ADD COLUMN IF NOT EXISTS breach_peak double precision;
-- The start of the run of consecutive empty buckets that ends with the last evaluated one.
ALTER TABLE policies ADD COLUMN IF NOT EXISTS silent_since timestamptz;
-- The end of the last bucket that raised or updated an alert of the policy: no alert is raised
-- again for a bucket before it (an alert resolved by hand is not raised again by its own bucket).
ALTER TABLE policies ADD COLUMN IF NOT EXISTS alerted_until timestamptz;

-- An alert copies the options needed to read it, and what a person needs to act on it.
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS recovery_threshold double precision;
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS compare_to text;
-- The bucket's aggregate (the alert's value is the percentage change when compare_to is set),
-- and the same aggregate of the comparison bucket.
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS aggregate_value double precision;
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS comparison_value double precision;
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS comparison_bucket_start timestamptz;
-- Since when the policy has breached (start of the first breaching bucket of the run), over
-- how many buckets, and the most extreme value among them.
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS breaching_since timestamptz;
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS breaching_buckets integer NOT NULL DEFAULT 1;
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS peak_value double precision;
-- The start of the run of empty buckets the last evaluated bucket belongs to (null when it had logs).
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS silent_since timestamptz;
-- When the last notification of the alert (triggered or reminder) was written: reminders are
-- counted from it.
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS notified_at timestamptz;
UPDATE alerts SET breaching_since = bucket_start WHERE breaching_since IS NULL;
UPDATE alerts SET aggregate_value = value WHERE aggregate_value IS NULL AND compare_to IS NULL;
UPDATE alerts SET peak_value = value WHERE peak_value IS NULL;
UPDATE alerts SET notified_at = triggered_at WHERE notified_at IS NULL;

-- Reminders are outbox notifications, and their sends delivery attempts, like the others.
ALTER TABLE alert_notifications DROP CONSTRAINT IF EXISTS alert_notifications_type_check;
ALTER TABLE alert_notifications ADD CONSTRAINT alert_notifications_type_check
  CHECK (type IN ('alert.triggered', 'alert.resolved', 'alert.reminder'));
ALTER TABLE delivery_attempts DROP CONSTRAINT IF EXISTS delivery_attempts_type_check;
ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_type_check
  CHECK (type IN ('alert.triggered', 'alert.resolved', 'alert.reminder', 'test'));
