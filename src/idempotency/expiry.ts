// The worker's periodic expiry of idempotency keys past their 24 hours (a request with an
// expired key also takes its row over at once: store.ts).
import type { BackgroundTask } from '../backgroundTask.js';
import type { Logger } from '../logger.js';
import type { PostgresStore } from '../stores/postgres.js';
import { expireIdempotencyKeys } from './operations.js';

const EXPIRY_INTERVAL_MS = 3_600_000;

export function idempotencyKeyExpiry(postgres: PostgresStore, logger: Logger, intervalMs = EXPIRY_INTERVAL_MS): BackgroundTask {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;

  async function expire(): Promise<void> {
    try {
      const expired = await expireIdempotencyKeys(postgres);
      if (expired > 0) logger.info('idempotency keys expired', { expired });
    } catch (err) {
      // The next run, or a request that takes an expired key over, catches up.
      logger.warn('idempotency key expiry failed', { err });
    }
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      running = expire().finally(() => {
        running = null;
        schedule();
      });
    }, intervalMs);
    timer.unref();
  }

  return {
    name: 'idempotency-key-expiry',
    start() {
      running = expire().finally(() => {
        running = null;
        schedule();
      });
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
