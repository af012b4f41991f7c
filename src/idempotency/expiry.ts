// The worker's periodic expiry of idempotency keys past their 24 hours (a request with an
// expired key also takes its row over at once: store.ts).
import { type BackgroundTask, periodicTask } from '../backgroundTask.js';
import type { Logger } from '../logger.js';
import type { PostgresStore } from '../stores/postgres.js';
import { expireIdempotencyKeys } from './operations.js';

const EXPIRY_INTERVAL_MS = 3_600_000;
const FIRST_RUN_MS = 60_000;

export function idempotencyKeyExpiry(postgres: PostgresStore, logger: Logger, intervalMs = EXPIRY_INTERVAL_MS): BackgroundTask {
  return periodicTask({
    name: 'idempotency-key-expiry',
    intervalMs,
    // The first run a minute after start, not during it: start-up has enough to do, and keys
    // expire lazily meanwhile (a request takes an expired key over).
    firstRunAfterMs: FIRST_RUN_MS,
    async run() {
      const expired = await expireIdempotencyKeys(postgres);
      if (expired > 0) logger.info('idempotency keys expired', { expired });
    },
    logger,
    // The next run, or a request that takes an expired key over, catches up.
    failureMessage: 'idempotency key expiry failed',
  });
}
