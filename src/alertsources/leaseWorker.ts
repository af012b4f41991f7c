// The worker's periodic resolution of received alerts whose lease has passed (receive.ts):
// their sender stopped posting them (or the last endsAt it gave is past). Several workers
// share the work through SKIP LOCKED; each alert is resolved and notified once.
import { type BackgroundTask, periodicTask } from '../backgroundTask.js';
import type { Logger } from '../logger.js';
import type { PostgresStore } from '../stores/postgres.js';
import { resolveExpiredLeases } from './receive.js';

export function receivedAlertLeases(postgres: PostgresStore, logger: Logger, intervalMs: number): BackgroundTask {
  return periodicTask({
    name: 'received-alert-leases',
    intervalMs,
    async run() {
      for (;;) {
        const resolved = await resolveExpiredLeases(postgres, new Date());
        if (resolved > 0) logger.info('received alerts resolved: lease passed', { resolved });
        if (resolved < 1000) return;
      }
    },
    logger,
    // The next run resolves what this one did not.
    failureMessage: 'resolving received alerts past their lease failed',
  });
}
