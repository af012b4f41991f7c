// The shared services of one process, built once from its configuration and stores: the HTTP
// app, the background workers and the tests all use these instances, so nothing is assembled
// twice and every part sees the same configuration.
import { TokenAuthenticator } from './auth/tokens.js';
import { runsWorker, servesIngest, usesClickHouse, type Config } from './config.js';
import type { DeliveryDeps } from './delivery/deliver.js';
import { PolicyEvaluator } from './evaluation/evaluator.js';
import { InsertSignal } from './evaluation/insertSignal.js';
import { EventDirectory } from './events/eventDirectory.js';
import type { EventsDeps } from './events/operations.js';
import { TimezoneCatalog } from './events/timezones.js';
import { Admission } from './ingest/admission.js';
import type { Ingestor, InsertListener } from './ingest/ingestor.js';
import { LogIngestor } from './ingest/logIngestor.js';
import { sharedParserThreads } from './ingest/intake/batchParsers.js';
import { Intake } from './ingest/intake/intake.js';
import { StreamIngestor } from './ingest/stream/streamIngestor.js';
import type { Logger } from './logger.js';
import { createMetrics, type Metrics } from './metrics.js';
import { escalationPoliciesPaging } from './escalation/operations.js';
import { ONCALL_LIMITS } from './oncall/model.js';
import type { OnCallDeps } from './oncall/people.js';
import type { SilencesDeps } from './silences/operations.js';
import type { DimensionsDeps } from './dimensions/operations.js';
import { SeriesLabeller } from './dimensions/seriesLabeller.js';
import { FirstSightDimensions } from './dimensions/firstSight.js';
import { SeriesBackfiller } from './dimensions/backfill.js';
import { PublicLinks } from './publicLinks.js';
import { ReceivedLeases } from './alertsources/leases.js';
import type { Stores } from './stores/index.js';

export interface Services {
  readonly config: Config;
  readonly stores: Stores;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly tokens: TokenAuthenticator;
  readonly directory: EventDirectory;
  readonly timezones: TimezoneCatalog;
  /**
   * Present in processes that ingest logs (ROLE all or ingest), ready to take them; with
   * JOURNAL_URL also in ROLE=worker, where it only runs the stream's writer.
   */
  readonly ingestor: Ingestor | null;
  /**
   * Ingest's front door (src/ingest/intake/), where this process ingests: every wire format's
   * records to the ingestor, through the process's parser threads (which hold the standard
   * formats' cumulative series).
   */
  readonly intake: Intake | null;
  /** Admission control of POST /v1.0/logs, where this process ingests. */
  readonly admission: Admission | null;
  readonly events: EventsDeps;
  readonly evaluator: PolicyEvaluator;
  /** Completed inserts announced to the evaluation worker (this process's, or others' through NOTIFY). */
  readonly insertSignal: InsertSignal;
  readonly delivery: DeliveryDeps;
  readonly silences: SilencesDeps;
  /** Declared dimensions of event names (docs/fleets.md). */
  readonly dimensions: DimensionsDeps;
  /** OTLP and remote-write declaring a metric's keys on first sight. */
  readonly firstSight: FirstSightDimensions;
  /** People and on-call schedules. */
  readonly oncall: OnCallDeps;
  /** The links messages carry back to the service (PUBLIC_URL). */
  readonly links: PublicLinks;
  /** The exact leases of the received alerts this process took posts of (alertsources/leases.ts). */
  readonly receivedLeases: ReceivedLeases;
}

export interface ServiceOptions {
  /** Defaults to a new registry. */
  readonly metrics?: Metrics;
  /** The evaluator's clock (tests); defaults to Date.now. */
  readonly now?: () => number;
}

/**
 * The ingest pipeline over config.ingest.journalDir: its journal recovered and replaying,
 * its idempotency window loaded, its rows labelled with their series by `series` and each
 * block announced to `onInserted` from the first block replayed (the declarations are read
 * first; a Postgres that does not answer fails the open rather than let a block go
 * unlabelled). The one way to build one (tests that need a second one, as another process
 * would have, call it with a directory, a journal and a labeller of their own).
 */
export async function openIngestor(
  config: Config,
  stores: Stores,
  directory: EventDirectory,
  metrics: Metrics,
  logger: Logger,
  series: SeriesLabeller,
  onInserted: InsertListener | null = null,
): Promise<LogIngestor> {
  return LogIngestor.open({ clickhouse: stores.clickhouse, directory, config: config.ingest, metrics, logger, series, onInserted });
}

/** The local journal's ingestor, or with JOURNAL_URL the stream's (publishing where the role ingests, writing where it holds ClickHouse). */
async function ingestorOf(
  config: Config,
  stores: Stores,
  directory: EventDirectory,
  metrics: Metrics,
  logger: Logger,
  series: SeriesLabeller,
  onInserted: InsertListener,
): Promise<Ingestor | null> {
  if (config.ingest.journalUrl === null) return servesIngest(config.role) ? openIngestor(config, stores, directory, metrics, logger, series, onInserted) : null;
  if (!servesIngest(config.role) && !runsWorker(config.role)) return null;
  const clickhouse = usesClickHouse(config) ? stores.clickhouse : null;
  return StreamIngestor.open({ config: config.ingest, directory, metrics, logger, clickhouse, series, onInserted });
}

/** Builds every service this process's role needs; the ingestor has loaded its idempotency window when this resolves. */
export async function buildServices(config: Config, stores: Stores, logger: Logger, options: ServiceOptions = {}): Promise<Services> {
  const metrics = options.metrics ?? createMetrics();
  const { postgres, clickhouse } = stores;
  const directory = new EventDirectory(postgres, config.events.maxDefinitionsPerWorkspace);
  // Before the ingestor: its writer replays the journal as it opens, every block labelled (issue 52)
  // and announced.
  const seriesLabeller = new SeriesLabeller(postgres, config.dimensions.maxSeries, metrics, logger);
  const insertSignal = new InsertSignal(postgres, logger);
  const announce = (eventIds: ReadonlySet<string>) => insertSignal.announce(eventIds);
  const ingestor = await ingestorOf(config, stores, directory, metrics, logger, seriesLabeller, announce);
  const timezones = usesClickHouse(config) ? await TimezoneCatalog.load(clickhouse) : TimezoneCatalog.ofIntl();
  const links = PublicLinks.of(config.http.publicUrl, `http://${config.http.host}:${config.http.port}`);
  const firstSight = new FirstSightDimensions(postgres, () => seriesLabeller.invalidate());
  const backfill = usesClickHouse(config)
    ? new SeriesBackfiller(postgres, clickhouse, () => ingestor?.caughtUp() ?? Promise.resolve(), config.dimensions.maxSeries, logger)
    : undefined;
  backfill?.resume().catch((err: unknown) => logger.error('dimensions: could not resume the backfills', { err }));
  return {
    config,
    stores,
    logger,
    metrics,
    tokens: new TokenAuthenticator(postgres),
    directory,
    timezones,
    ingestor,
    intake: ingestor && new Intake({ ingestor, metrics, parsers: sharedParserThreads, limits: config.ingest, firstSight }),
    admission: ingestor && new Admission(config.ingest, metrics),
    events: { postgres, clickhouse, directory, timezones, inserts: ingestor },
    evaluator: new PolicyEvaluator({
      postgres,
      clickhouse,
      graceMs: config.evaluation.graceMs,
      now: options.now,
      maxGroups: config.policies.maxGroups,
      timezones,
    }),
    insertSignal,
    delivery: { postgres, settings: { ...config, links }, retryScheduleMs: config.delivery.retryScheduleMs, metrics, logger },
    silences: { postgres, timezones, maxPerWorkspace: config.silences.maxPerWorkspace },
    dimensions: {
      postgres,
      backfill,
      maxPerWorkspace: config.events.maxDefinitionsPerWorkspace,
      declared: () => seriesLabeller.invalidate(),
      forgotten: (ws, event) => firstSight.forget(ws, event),
    },
    firstSight,
    oncall: {
      postgres,
      timezones,
      maxPeople: ONCALL_LIMITS.peoplePerWorkspace,
      maxSchedules: ONCALL_LIMITS.schedulesPerWorkspace,
      now: options.now,
      pagedBy: escalationPoliciesPaging,
    },
    links,
    receivedLeases: new ReceivedLeases(),
  };
}
