// The escalation worker (ROLE=worker and ROLE=all): every ESCALATION_POLL_INTERVAL_MS, one
// cycle of runDueEscalations (src/escalation/chain.ts). Several workers may run it at once:
// each chain row is locked by the one that takes it (SKIP LOCKED), so no step is written twice.
import { type BackgroundTask, finishedWithin } from '../backgroundTask.js';
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

/** How long stop() waits for a cycle in progress (a step's transaction is short). */
const STOP_WAIT_MS = 15_000;
export function escalationWorker({ postgres, settings, intervalMs, logger, now = Date.now }: EscalationWorkerDeps): BackgroundTask {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;

  async function cycle(): Promise<void> {
    try {
      const report = await runDueEscalations(postgres, settings, new Date(now()));
      if (report.sent + report.ended + report.started > 0) {
        logger.info('escalation cycle', { started: report.started, sent: report.sent, ended: report.ended, max_late_ms: Math.max(0, ...report.lateMs) });
      }
    } catch (err) {
      // Nothing of the cycle was written (each step commits with its chain's advance); the next cycle redoes it.
      logger.error('escalation cycle failed', { err });
    }
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      running = cycle().finally(() => {
        running = null;
        schedule();
      });
    }, intervalMs);
  }

  return {
    name: 'escalation',
    start() {
      schedule();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      // A cycle stuck on a store that went away is not waited for: each step commits with its chain's advance.
      if (!(await finishedWithin(running, STOP_WAIT_MS))) logger.warn('escalation worker stopped before its cycle finished; the next cycle redoes it');
    },
  };
}
