import client from 'prom-client';

/** What the backlog gauges read at each scrape: the journal's backlog (JournalBacklog, src/ingest/journal/journal.ts). */
export interface BacklogReading {
  readonly bytes: number;
  readonly records: number;
  /** ms since the epoch, of the oldest frame; null when empty. */
  readonly oldestJournaledAt: number | null;
}

/** One registry per process (and per test app), holding every metric the service exports. */
export function createMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'alertmon_' });

  let journalBacklog: () => BacklogReading | null = () => null;
  const metrics = {
    registry,
    /** Lets the oldest-age gauge read the journal of this process at each scrape. */
    registerJournal(backlog: () => BacklogReading) {
      journalBacklog = backlog;
    },
    /** The journal's backlog now (admission reads it), null where this process has no journal. */
    journalBacklog(): BacklogReading | null {
      return journalBacklog();
    },
    httpRequests: new client.Counter({
      name: 'alertmon_http_requests_total',
      help: 'HTTP requests answered, by method, route and status.',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    ingestedRecords: new client.Counter({
      name: 'alertmon_ingested_records_total',
      help: 'Log records stored in ClickHouse by the journal writer (retried duplicates excluded).',
      registers: [registry],
    }),
    seriesOverflowRecords: new client.Counter({
      name: 'alertmon_series_overflow_records_total',
      help: 'Records counted in an overflow series: their event name had DIMENSION_MAX_SERIES series in the last 24 hours (docs/fleets.md).',
      registers: [registry],
    }),
    acceptedRecords: new client.Counter({
      name: 'alertmon_accepted_records_total',
      help: 'Log records journaled and answered 200 (retried duplicates excluded).',
      registers: [registry],
    }),
    refusedRequests: new client.Counter({
      name: 'alertmon_ingest_refused_requests_total',
      help: 'POST /v1.0/logs requests refused before storing anything, by status (429, 503) and reason.',
      labelNames: ['status', 'reason'] as const,
      registers: [registry],
    }),
    ingestCapacity: new client.Gauge({
      name: 'alertmon_ingest_capacity_records_per_second',
      help: 'Records per second this process journals when saturated, as measured; workspaces share it when INGEST_WORKSPACE_RECORDS_PER_S is unset.',
      registers: [registry],
    }),
    // Read at each scrape from the journal this process registered: the local journal's
    // unconsumed frames, or the JetStream stream's messages not yet acknowledged by the writer
    // (work-queue retention: the consumer's lag).
    journalBacklogRecords: new client.Gauge({
      name: 'alertmon_journal_backlog_records',
      help: 'Log records journaled (answered 200) and not yet in ClickHouse; on JetStream, estimated from the stream messages not yet acknowledged.',
      registers: [registry],
      collect() {
        this.set(journalBacklog()?.records ?? 0);
      },
    }),
    journalBacklogBytes: new client.Gauge({
      name: 'alertmon_journal_backlog_bytes',
      help: 'Journal bytes not yet in ClickHouse (on JetStream, the stream bytes not yet acknowledged); appends past INGEST_JOURNAL_MAX_BYTES are answered 503.',
      registers: [registry],
      collect() {
        this.set(journalBacklog()?.bytes ?? 0);
      },
    }),
    journalOldestAgeSeconds: new client.Gauge({
      name: 'alertmon_journal_oldest_age_seconds',
      help: 'Age of the oldest journaled record not yet in ClickHouse (0 when none): how far behind the rollups are.',
      registers: [registry],
      collect() {
        const oldest = journalBacklog()?.oldestJournaledAt ?? null;
        this.set(oldest === null ? 0 : (Date.now() - oldest) / 1000);
      },
    }),
    journalFsyncSeconds: new client.Histogram({
      name: 'alertmon_journal_fsync_seconds',
      help: 'Duration of one journal write + fdatasync (one group commit).',
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    journalDamagedBytes: new client.Counter({
      name: 'alertmon_journal_damaged_bytes_total',
      help: 'Damaged journal bytes found in the middle of the journal at start-up (kept under JOURNAL_DIR/damaged; their records were lost).',
      registers: [registry],
    }),
    journalQuarantinedFrames: new client.Counter({
      name: 'alertmon_journal_quarantined_frames_total',
      help: 'Journal frames that did not read back as they were appended; each was set aside (its bytes kept under JOURNAL_DIR/damaged) and the writer went on with the next.',
      registers: [registry],
    }),
    journalQuarantinedRecords: new client.Counter({
      name: 'alertmon_journal_quarantined_records_total',
      help: 'Records of the journal frames set aside because they did not read back (alertmon_journal_quarantined_frames_total).',
      registers: [registry],
    }),
    journalRefusedRecords: new client.Counter({
      name: 'alertmon_journal_refused_records_total',
      help: 'Journaled records ClickHouse refused; their batches were set aside under JOURNAL_DIR/refused.',
      registers: [registry],
    }),
    clickhouseInsertFailures: new client.Counter({
      name: 'alertmon_clickhouse_insert_failures_total',
      help: 'Journal inserts that failed and were retried with the same deduplication token.',
      registers: [registry],
    }),
    duplicateRecords: new client.Counter({
      name: 'alertmon_duplicate_records_total',
      help: 'Log records acknowledged without being stored again because their log_id was already accepted.',
      registers: [registry],
    }),
    rejectedRecords: new client.Counter({
      name: 'alertmon_rejected_records_total',
      help: 'Log records refused, by reason (invalid, too_large, definition_limit, journal_full, storage_error).',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    ingestQueueDepth: new client.Gauge({
      name: 'alertmon_ingest_queue_depth',
      help: 'Log records waiting for their ClickHouse insert (the journal backlog).',
      registers: [registry],
      collect() {
        this.set(journalBacklog()?.records ?? 0);
      },
    }),
    dedupWindowSeconds: new client.Gauge({
      name: 'alertmon_dedup_window_seconds',
      help: 'How far back retried log_ids are recognised: 600 unless INGEST_DEDUP_MAX_IDS cut the window short.',
      registers: [registry],
    }),
    dedupRememberedIds: new client.Gauge({
      name: 'alertmon_dedup_remembered_ids',
      help: 'Client log_ids remembered for idempotency.',
      registers: [registry],
    }),
    clickhouseInsertSeconds: new client.Histogram({
      name: 'alertmon_clickhouse_insert_seconds',
      help: 'Duration of one journal block insert into ClickHouse.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    clickhouseInsertRows: new client.Histogram({
      name: 'alertmon_clickhouse_insert_rows',
      help: 'Rows written by one journal block insert into ClickHouse.',
      buckets: [1, 10, 100, 1000, 5000, 10000, 25000, 50000, 100000],
      registers: [registry],
    }),
    evaluations: new client.Counter({
      name: 'alertmon_evaluations_total',
      help: 'Closed buckets evaluated, one per policy and bucket.',
      registers: [registry],
    }),
    evaluationSkippedBuckets: new client.Counter({
      name: 'alertmon_evaluation_skipped_buckets_total',
      help: 'Closed buckets passed over because they were older than the catch-up limit when a worker got to them.',
      registers: [registry],
    }),
    policyGroupsTruncated: new client.Counter({
      name: 'alertmon_policy_groups_truncated_total',
      help: 'Groups of fleet policies left unjudged in a bucket because the policy had more than POLICY_MAX_GROUPS groups in it (the largest by count are judged).',
      registers: [registry],
    }),
    evaluationCycleSeconds: new client.Histogram({
      name: 'alertmon_evaluation_cycle_seconds',
      help: 'Duration of one evaluation cycle over every enabled policy.',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers: [registry],
    }),
    evaluationCyclePolicies: new client.Gauge({
      name: 'alertmon_evaluation_cycle_policies',
      help: 'Enabled policies considered by the last evaluation cycle.',
      registers: [registry],
    }),
    evaluationSignalRuns: new client.Counter({
      name: 'alertmon_evaluation_signal_runs_total',
      help: 'Evaluations driven by inserted records (each over the enabled policies of the events they touched).',
      registers: [registry],
    }),
    evaluationSignalPolicies: new client.Counter({
      name: 'alertmon_evaluation_signal_policies_total',
      help: 'Policies evaluated by evaluations driven by inserted records.',
      registers: [registry],
    }),
    evaluationSignalSeconds: new client.Histogram({
      name: 'alertmon_evaluation_signal_seconds',
      help: 'Duration of one evaluation driven by inserted records.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5],
      registers: [registry],
    }),
    openAlerts: new client.Gauge({
      name: 'alertmon_open_alerts',
      help: 'Alerts triggered or acknowledged, in every workspace, as of the last evaluation cycle.',
      registers: [registry],
    }),
    deliveries: new client.Counter({
      name: 'alertmon_deliveries_total',
      help: 'Notification sends, by channel and outcome (delivered; failed = a retry follows; exhausted = given up).',
      labelNames: ['channel', 'outcome'] as const,
      registers: [registry],
    }),
    deliveryFailures: new client.Counter({
      name: 'alertmon_delivery_failures_total',
      help: 'Failed notification sends, by channel and reason (timeout, rate_limited, server_error, rejected, blocked_target …).',
      labelNames: ['channel', 'reason'] as const,
      registers: [registry],
    }),
    deliveryAttemptSeconds: new client.Histogram({
      name: 'alertmon_delivery_attempt_seconds',
      help: 'Duration of one notification send, by channel.',
      labelNames: ['channel'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    deliveryPendingRetries: new client.Gauge({
      name: 'alertmon_delivery_pending_retries',
      help: 'Retries of failed sends waiting for their time.',
      registers: [registry],
    }),
  };
  return metrics;
}

export type Metrics = ReturnType<typeof createMetrics>;
