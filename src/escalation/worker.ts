// The escalation worker (ROLE=worker and ROLE=all): every ESCALATION_POLL_INTERVAL_MS, one
// cycle of runDueEscalations (src/escalation/chain.ts). Several workers may run it at once:
// each chain row is locked by the one that takes it (SKIP LOCKED), so no step is written twice.
import { type BackgroundTask, periodicTask } from '../backgroundTask.js';
import type { Logger } from '../logger.js';
import type { PostgresStore } from '../stores/postgres.js';
import { runDueEscalations, type EscalationSettings } from './chain.js';

export interface EscalationWorkerDeps {
  readonly postgres: PostgresStore;
  readonly settings: EscalationSettings;
  readonly intervalMs: number;
  readonly logger: Logger;
  /** The clock (tests); defaults to Date.now. */
  readonly now?: () => number;
}

export function escalationWorker({ postgres, settings, intervalMs, logger, now = Date.now }: EscalationWorkerDeps): BackgroundTask {
  async function cycle(): Promise<void> {
    const report = await runDueEscalations(postgres, settings, new Date(now()));
    if (report.sent + report.ended + report.started > 0) {
      logger.info('escalation cycle', { started: report.started, sent: report.sent, ended: report.ended, max_late_ms: Math.max(0, ...report.lateMs) });
    }
  }

  // A cycle that fails or is cut short at stop wrote nothing it did not finish (each step
  // commits with its chain's advance); the next cycle redoes the rest.
  return periodicTask({ name: 'escalation', intervalMs, run: cycle, logger, failureMessage: 'escalation cycle failed' });
}
