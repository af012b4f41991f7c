// The handoff worker (ROLE=worker and ROLE=all): every interval (the escalation poll's), one
// cycle of runDueHandoffs (handoffs.ts). Several workers may run it at once: the one that
// locks the cursor does the cycle, the others skip theirs, so no notice is written twice.
import { type BackgroundTask, periodicTask } from '../backgroundTask.js';
import type { Logger } from '../logger.js';
import type { PostgresStore } from '../stores/postgres.js';
import { runDueHandoffs } from './handoffs.js';

export interface HandoffWorkerDeps {
  readonly postgres: PostgresStore;
  readonly intervalMs: number;
  readonly logger: Logger;
  /** The clock (tests); defaults to Date.now. */
  readonly now?: () => number;
}

export function handoffWorker({ postgres, intervalMs, logger, now = Date.now }: HandoffWorkerDeps): BackgroundTask {
  async function cycle(): Promise<void> {
    const report = await runDueHandoffs(postgres, new Date(now()));
    if (report.noticed > 0) logger.info('handoff notices written', { noticed: report.noticed });
  }
  // A cycle cut short wrote nothing (notices and the cursor commit together); the next one covers the stretch again.
  return periodicTask({ name: 'handoffs', intervalMs, run: cycle, logger, failureMessage: 'handoff cycle failed' });
}
