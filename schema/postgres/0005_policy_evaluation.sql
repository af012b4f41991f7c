-- Evaluation progress and coordination of the evaluation worker (issue 9).

-- The instant up to which the policy's closed buckets have been evaluated: the next bucket
-- to evaluate is the one containing it. NULL for a new or re-enabled policy, which starts
-- with the last bucket closed when a worker first sees it. Moved only by a compare-and-set
-- in the transaction that applies a bucket's verdict, so no bucket is skipped or repeated.
ALTER TABLE policies ADD COLUMN IF NOT EXISTS evaluated_until timestamptz;

-- The worker rewrites evaluated_until of every minute policy every minute. With room left
-- in each page, that update stays on the row's page and touches no index (a HOT update),
-- and the old versions are pruned as pages are read: embedded PGlite runs no autovacuum.
ALTER TABLE policies SET (fillfactor = 50);

-- A lease that lets one worker process at a time run an evaluation cycle: the others skip
-- the cycle instead of doing the same ClickHouse reads. A lease that expires (a worker
-- that died mid-cycle) is taken over by the next worker.
CREATE TABLE IF NOT EXISTS worker_leases (
  name       text PRIMARY KEY,
  holder     text NOT NULL,
  expires_at timestamptz NOT NULL
);

-- The alert list filtered by status, newest first.
CREATE INDEX IF NOT EXISTS alerts_workspace_status_triggered_idx ON alerts (workspace_id, status, triggered_at DESC, alert_id DESC);
