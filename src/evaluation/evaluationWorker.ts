// The evaluation worker (ROLE=worker and ROLE=all): every EVAL_INTERVAL_MS, one cycle of
// PolicyEvaluator.evaluateDuePolicies. Worker processes on the same stores take turns
// through a lease in Postgres, so a cycle's reads are not done twice; should two cycles
// overlap anyway (an expired lease), the compare-and-set on each policy's progress and the
// unique index on open alerts keep every bucket applied once and one open alert per policy.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { PostgresStore } from '../stores/postgres.js';
import { type BackgroundTask, periodicTask } from '../backgroundTask.js';
import type { PolicyEvaluator } from './evaluator.js';
import { releaseLease, tryTakeLease } from './lease.js';

const LEASE = 'policy-evaluation';

export interface EvaluationWorkerDeps {
  readonly evaluator: PolicyEvaluator;
  readonly postgres: PostgresStore;
  readonly intervalMs: number;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

export function evaluationWorker({ evaluator, postgres, intervalMs, logger, metrics }: EvaluationWorkerDeps): BackgroundTask {
  const holder = randomUUID();
  // Long enough for a slow cycle; a crashed holder delays evaluation by at most this.
  const leaseMs = Math.max(60_000, 4 * intervalMs);

  async function cycle(): Promise<void> {
    const started = performance.now();
    if (!(await tryTakeLease(postgres, LEASE, holder, leaseMs))) return;
    try {
      const report = await evaluator.evaluateDuePolicies();
      metrics.evaluations.inc(report.evaluations);
      metrics.evaluationSkippedBuckets.inc(report.skippedBuckets);
      metrics.policyGroupsTruncated.inc(report.groupsTruncated);
      metrics.evaluationCyclePolicies.set(report.policies);
      metrics.evaluationCycleSeconds.observe((performance.now() - started) / 1000);
      const [open] = await postgres.query<{ n: number }>("SELECT count(*)::int AS n FROM alerts WHERE status IN ('triggered', 'acknowledged')");
      metrics.openAlerts.set(open!.n);
      if (report.raised + report.resolved + report.skippedBuckets > 0) logger.info('evaluation cycle', { ...report });
    } finally {
      await releaseLease(postgres, LEASE, holder);
    }
  }

  // A cycle that fails (or is cut short at stop) recorded no progress; the next cycle redoes it.
  return periodicTask({ name: 'policy-evaluation', intervalMs, run: cycle, logger, failureMessage: 'evaluation cycle failed' });
}
