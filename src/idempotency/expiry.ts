// The worker's periodic expiry of idempotency keys past their 24 hours (a request with an
// expired key also takes its row over at once: store.ts).
import type { BackgroundTask } from '../backgroundTask.js';
import type { Logger } from '../logger.js';
import type { PostgresStore } from '../stores/postgres.js';
import { expireIdempotencyKeys } from './operations.js';

const EXPIRY_INTERVAL_MS = 3_600_000;
const FIRST_RUN_MS = 60_000;

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

  function schedule(delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      running = expire().finally(() => {
        running = null;
        schedule(intervalMs);
      });
    }, delayMs);
    timer.unref();
  }

  return {
    name: 'idempotency-key-expiry',
    // The first run a minute after start, not during it: start-up has enough to do, and keys
    // expire lazily meanwhile (a request takes an expired key over).
    start() {
      schedule(FIRST_RUN_MS);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
