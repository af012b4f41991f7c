// The shared services of one process, built once from its configuration and stores: the HTTP
// app, the background workers and the tests all use these instances, so nothing is assembled
// twice and every part sees the same configuration.
import { TokenAuthenticator } from './auth/tokens.js';
import { servesIngest, type Config } from './config.js';
import type { DeliveryDeps } from './delivery/deliver.js';
import { PolicyEvaluator } from './evaluation/evaluator.js';
import { EventDirectory } from './events/eventDirectory.js';
import type { EventsDeps } from './events/operations.js';
import { TimezoneCatalog } from './events/timezones.js';
import { LogIngestor } from './ingest/logIngestor.js';
import type { Logger } from './logger.js';
import { createMetrics, type Metrics } from './metrics.js';
import type { Stores } from './stores/index.js';

export interface Services {
  readonly config: Config;
  readonly stores: Stores;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly tokens: TokenAuthenticator;
  readonly directory: EventDirectory;
  readonly timezones: TimezoneCatalog;
  /** Present in processes that ingest logs (ROLE all or ingest), ready to take them. */
  readonly ingestor: LogIngestor | null;
  readonly events: EventsDeps;
  readonly evaluator: PolicyEvaluator;
  readonly delivery: DeliveryDeps;
}

export interface ServiceOptions {
  /** Defaults to a new registry. */
  readonly metrics?: Metrics;
  /** The evaluator's clock (tests); defaults to Date.now. */
  readonly now?: () => number;
}

/** Builds every service this process's role needs; the ingestor has loaded its idempotency window when this resolves. */
export async function buildServices(config: Config, stores: Stores, logger: Logger, options: ServiceOptions = {}): Promise<Services> {
  const metrics = options.metrics ?? createMetrics();
  const { postgres, clickhouse } = stores;
  const directory = new EventDirectory(postgres, config.events.maxDefinitionsPerWorkspace);
  let ingestor: LogIngestor | null = null;
  if (servesIngest(config.role)) {
    ingestor = new LogIngestor({ clickhouse, directory, config: config.ingest, metrics, logger });
    await ingestor.start();
  }
  const timezones = await TimezoneCatalog.load(clickhouse);
  return {
    config,
    stores,
    logger,
    metrics,
    tokens: new TokenAuthenticator(postgres),
    directory,
    timezones,
    ingestor,
    events: { postgres, clickhouse, directory, timezones, inserts: ingestor },
    evaluator: new PolicyEvaluator({ postgres, clickhouse, graceMs: config.evaluation.graceMs, now: options.now }),
    delivery: { postgres, settings: config, retryScheduleMs: config.delivery.retryScheduleMs, metrics, logger },
  };
}
