// The shared services of one process, built once from its configuration and stores: the HTTP
// app, the background workers and the tests all use these instances, so nothing is assembled
// twice and every part sees the same configuration.
import { TokenAuthenticator } from './auth/tokens.js';
import { servesIngest, type Config } from './config.js';
import type { DeliveryDeps } from './delivery/deliver.js';
import { PolicyEvaluator } from './evaluation/evaluator.js';
import { InsertSignal } from './evaluation/insertSignal.js';
import { EventDirectory } from './events/eventDirectory.js';
import type { EventsDeps } from './events/operations.js';
import { TimezoneCatalog } from './events/timezones.js';
import { Admission } from './ingest/admission.js';
import { LogIngestor } from './ingest/logIngestor.js';
import type { Logger } from './logger.js';
import { createMetrics, type Metrics } from './metrics.js';
import type { SilencesDeps } from './silences/operations.js';
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
  /** Admission control of POST /v1.0/logs, where this process ingests. */
  readonly admission: Admission | null;
  readonly events: EventsDeps;
  readonly evaluator: PolicyEvaluator;
  /** Completed inserts announced to the evaluation worker (this process's, or others' through NOTIFY). */
  readonly insertSignal: InsertSignal;
  readonly delivery: DeliveryDeps;
  readonly silences: SilencesDeps;
}

export interface ServiceOptions {
  /** Defaults to a new registry. */
  readonly metrics?: Metrics;
  /** The evaluator's clock (tests); defaults to Date.now. */
  readonly now?: () => number;
}

/**
 * The ingest pipeline over config.ingest.journalDir: its journal recovered and replaying,
 * its idempotency window loaded. The one way to build one (tests that need a second one, as
 * another process would have, call it with a directory and a journal of their own).
 */
export function openIngestor(config: Config, stores: Stores, directory: EventDirectory, metrics: Metrics, logger: Logger): Promise<LogIngestor> {
  return LogIngestor.open({ clickhouse: stores.clickhouse, directory, config: config.ingest, metrics, logger });
}

/** Builds every service this process's role needs; the ingestor has loaded its idempotency window when this resolves. */
export async function buildServices(config: Config, stores: Stores, logger: Logger, options: ServiceOptions = {}): Promise<Services> {
  const metrics = options.metrics ?? createMetrics();
  const { postgres, clickhouse } = stores;
  const directory = new EventDirectory(postgres, config.events.maxDefinitionsPerWorkspace);
  const ingestor = servesIngest(config.role) ? await openIngestor(config, stores, directory, metrics, logger) : null;
  const timezones = await TimezoneCatalog.load(clickhouse);
  const insertSignal = new InsertSignal(postgres, logger);
  ingestor?.onInserted((eventIds) => insertSignal.announce(eventIds));
  return {
    config,
    stores,
    logger,
    metrics,
    tokens: new TokenAuthenticator(postgres),
    directory,
    timezones,
    ingestor,
    admission: ingestor && new Admission(config.ingest, metrics),
    events: { postgres, clickhouse, directory, timezones, inserts: ingestor },
    evaluator: new PolicyEvaluator({ postgres, clickhouse, graceMs: config.evaluation.graceMs, now: options.now }),
    insertSignal,
    delivery: { postgres, settings: config, retryScheduleMs: config.delivery.retryScheduleMs, metrics, logger },
    silences: { postgres, timezones, maxPerWorkspace: config.silences.maxPerWorkspace },
  };
}
