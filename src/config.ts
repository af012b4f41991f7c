// Configuration is read once from the environment into a typed, frozen object.
// A bad value never starts the service: every problem is collected and reported together.
import path from 'node:path';

export const ROLES = ['all', 'api', 'ingest', 'worker'] as const;
export type Role = (typeof ROLES)[number];

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface HttpConfig {
  /** HOST. @default '127.0.0.1' */
  readonly host: string;
  /** PORT; 0 picks a free port. @default 8080 */
  readonly port: number;
  /** LOGS_PORT: a second listener that serves only POST /v1.0/logs. @default null (none) */
  readonly logsPort: number | null;
  /** SHUTDOWN_TIMEOUT_MS: in-flight requests still running after this long are cut at shutdown. @default 30000 */
  readonly shutdownTimeoutMs: number;
  /** ADMIN_TOKEN: enables the admin API; at least 16 characters. @default null (admin API answers 404) */
  readonly adminToken: string | null;
  /** PUBLIC_RATE_LIMIT_PER_MINUTE: requests to the share-link routes one client address may make per minute (429 past it). @default 120 */
  readonly publicRequestsPerMinute: number;
  /** PUBLIC_URL: the service's address as recipients of its messages see it (acknowledge links, share links). @default null (http://HOST:PORT of the listener) */
  readonly publicUrl: string | null;
}

export interface ClickHouseConfig {
  /** CLICKHOUSE_URL: a ClickHouse server over HTTP. @default null (the embedded chDB engine under DATA_DIR/clickhouse) */
  readonly url: string | null;
  /** CLICKHOUSE_USER. @default 'default' */
  readonly user: string;
  /** CLICKHOUSE_PASSWORD. @default '' */
  readonly password: string;
  /** CLICKHOUSE_DATABASE, an identifier. @default 'alertmon' */
  readonly database: string;
}

/** The analysts' SQL (POST /v1.0/admin/sql, `npm run sql`); docs/analyst-sql.md, Limits. */
export interface AnalystConfig {
  /** ANALYST_MAX_MEMORY_BYTES: memory one analyst query may take (ClickHouse max_memory_usage); past it, 400. @default 1073741824 (1 GiB) */
  readonly maxMemoryBytes: number;
  /** ANALYST_MAX_CONCURRENT_QUERIES: analyst queries run at once per process, so together they take at most this many times ANALYST_MAX_MEMORY_BYTES; as many again wait, beyond that 429 analyst_busy. @default 2 */
  readonly maxConcurrentQueries: number;
}

export interface PostgresConfig {
  /** DATABASE_URL: a Postgres server. @default null (embedded PGlite under DATA_DIR/postgres) */
  readonly url: string | null;
  /**
   * EMBEDDED_POSTGRES_SHARED_BUFFERS_MB: the embedded Postgres's page cache (its
   * shared_buffers), which it zeroes at every start: about 5 ms a MB of the start here. Unused
   * with DATABASE_URL. @default 128 (Postgres's own default)
   */
  readonly embeddedSharedBuffersMb: number;
}

export interface EventsConfig {
  /** WORKSPACE_MAX_EVENT_DEFINITIONS: logs of a new pair past it are refused (400). @default 10000 */
  readonly maxDefinitionsPerWorkspace: number;
}

export interface DimensionsConfig {
  /** DIMENSION_MAX_SERIES: series an event name keeps within 24 hours, per writer process; records of a further new series are counted in their agent's overflow series. @default 10000 */
  readonly maxSeries: number;
}

export interface IngestConfig {
  /** INGEST_MAX_BATCH_RECORDS: records one POST /v1.0/logs may carry; more is answered 400. The body limit of that route follows it (2 KB a record, at least 1 MB). @default 1000 */
  readonly maxBatchRecords: number;
  /** INGEST_MAX_POINTS: data points one POST /v1/metrics (OTLP) or samples one POST /api/v1/write (remote-write) may carry; more is answered 413, nothing stored. @default 50000 */
  readonly maxPoints: number;
  /** INGEST_WRITER_STALL_S: /readyz answers 503 once the journal writer has moved nothing into ClickHouse for this long while records wait for it. @default 60 */
  readonly writerStallS: number;
  /** JOURNAL_DIR: the write-ahead journal of this process (one per ingest process). @default DATA_DIR/journal */
  readonly journalDir: string;
  /** INGEST_JOURNAL_MAX_BYTES: journal bytes not yet in ClickHouse; past it, batches are answered 503. @default 1073741824 (1 GiB) */
  readonly journalMaxBytes: number;
  /** INGEST_JOURNAL_SEGMENT_BYTES: a journal segment file is closed and a new one begun past this size. @default 67108864 (64 MiB) */
  readonly journalSegmentBytes: number;
  /** INGEST_INSERT_BLOCK_RECORDS: the journal writer inserts as soon as this many records wait. @default 50000 */
  readonly insertBlockRecords: number;
  /** INGEST_FLUSH_INTERVAL_MS: ... or at most one insert per this many ms, so a batch after a quiet spell goes in at once and others wait at most this long. @default 250 */
  readonly flushIntervalMs: number;
  /** INGEST_WORKSPACE_RECORDS_PER_S: records per second one workspace may send; past it, 429. @default null (a fair share of the measured capacity) */
  readonly workspaceRecordsPerS: number | null;
  /** INGEST_WORKSPACE_BURST_S: a workspace may send this many seconds' worth of its rate at once. @default 3 */
  readonly workspaceBurstS: number;
  /** INGEST_MAX_CONCURRENT_REQUESTS: log requests handled at once (each workspace a fair share); beyond, 429 before reading the body. @default 48 */
  readonly maxConcurrentRequests: number;
  /** INGEST_SHUTDOWN_DRAIN_MS: at shutdown the journal writer drains for at most this long; the rest is replayed at the next start. @default 10000 */
  readonly shutdownDrainMs: number;
  /** INGEST_DEDUP_MAX_IDS: client log_ids remembered for idempotency; beyond this the 10-minute window shrinks. @default 10000000 */
  readonly dedupMaxIds: number;
  /** JOURNAL_URL: a NATS JetStream server (`nats://host:4222`, comma-separated for a cluster) whose stream is the journal instead of JOURNAL_DIR. @default null (the local journal) */
  readonly journalUrl: string | null;
  /** JOURNAL_STREAM: the JetStream stream's name (created or checked at start-up). @default 'alertmon' */
  readonly journalStream: string;
  /** JOURNAL_MAX_AGE_S: the stream's max_age; records not in ClickHouse after this long are dropped by JetStream. @default 604800 (7 days) */
  readonly journalMaxAgeS: number;
  /** JOURNAL_ACK_WAIT_MS: the writers' consumer delivers a message again when its writer has given no sign of life for this long (a writer killed mid-block). @default 30000 */
  readonly journalAckWaitMs: number;
}

export interface PoliciesConfig {
  /** WORKSPACE_MAX_POLICIES: policies one workspace may have; creating one more is refused (409). @default 10000 */
  readonly maxPerWorkspace: number;
  /** POLICY_MAX_GROUPS: groups a fleet policy judges a bucket, the largest by count; the rest are counted in groups_truncated. @default 10000 */
  readonly maxGroups: number;
}

export interface DestinationsConfig {
  /** WORKSPACE_MAX_DESTINATIONS: destinations one workspace may have; creating one more is refused (409). @default 1000 */
  readonly maxPerWorkspace: number;
}

export interface SilencesConfig {
  /** WORKSPACE_MAX_SILENCES: silences one workspace may keep (ended ones included); creating one more is refused (409). @default 1000 */
  readonly maxPerWorkspace: number;
}

export interface EvaluationConfig {
  /** EVAL_INTERVAL_MS: how often the worker evaluates every enabled policy. @default 15000 */
  readonly intervalMs: number;
  /** EVAL_GRACE_MS: a bucket is evaluated this long after it closed, for late logs. @default 5000 */
  readonly graceMs: number;
}

export interface DeliveryConfig {
  /** DELIVERY_RETRY_SCHEDULE_MS: base delay before each retry of a failed send; its length + 1 is the number of tries. @default [10000, 60000, 300000, 1800000, 7200000] */
  readonly retryScheduleMs: readonly number[];
  /** DELIVERY_TIMEOUT_MS: one send (HTTP request or SMTP session) gives up after this long. @default 10000 */
  readonly timeoutMs: number;
  /**
   * DELIVERY_LEASE_GRACE_MS: a claim holds its attempts this long past their sends' time-outs; a worker that dies
   * mid-send leaves them to be closed as interrupted and re-sent after it; 1 s to 1 h. @default 30000
   */
  readonly leaseGraceMs: number;
  /** DELIVERY_POLL_INTERVAL_MS: the worker looks for due retries (and, as a fallback to the outbox signal, new notifications) this often when idle; 10 ms to 1 h. @default 250 */
  readonly pollIntervalMs: number;
  /** DELIVERY_CONCURRENCY: sends in flight at most per worker. @default 64 */
  readonly concurrency: number;
  /**
   * DELIVERY_DESTINATION_CONCURRENCY: sends in flight to one destination at most per worker, so a target that hangs
   * holds only these slots and the other destinations keep theirs. @default 32
   */
  readonly destinationConcurrency: number;
  /** DELIVERY_WORKSPACE_CONCURRENCY: sends in flight for one workspace at most per worker. @default 48 */
  readonly workspaceConcurrency: number;
  /** ESCALATION_MINUTE_MS: how long a minute of an escalation step's after_minutes is (shorter in tests). @default 60000 */
  readonly escalationMinuteMs: number;
  /** ESCALATION_POLL_INTERVAL_MS: how often the worker looks for escalation steps that are due, and for shift starts to announce. @default 1000 */
  readonly escalationPollIntervalMs: number;
  /** ALLOW_PRIVATE_TARGETS: lets webhooks reach loopback, private and link-local addresses. @default false */
  readonly allowPrivateTargets: boolean;
}

/** Where each provider is reached; configurable so that tests can point them at local fakes. */
export interface ChannelsConfig {
  /** SLACK_WEBHOOK_ORIGIN: Slack URLs must start with it. @default 'https://hooks.slack.com' */
  readonly slackWebhookOrigin: string;
  /** DISCORD_WEBHOOK_ORIGINS, comma-separated: Discord URLs must be on one of them. @default ['https://discord.com', 'https://discordapp.com'] */
  readonly discordWebhookOrigins: readonly string[];
  /** TELEGRAM_API_ORIGIN: where sendMessage is called. @default 'https://api.telegram.org' */
  readonly telegramApiOrigin: string;
  /** SMTP_URL (smtp: or smtps:). @default null (email is not sent; attempts fail with not_configured) */
  readonly smtpUrl: string | null;
  /** EMAIL_FROM. @default 'alertmon@localhost' */
  readonly emailFrom: string;
}

/** Everything the service reads from the environment, grouped by the part of the service that uses it. */
export interface Config {
  /** ROLE: which parts this process runs. @default 'all' */
  readonly role: Role;
  /** DATA_DIR: where the embedded stores (and other local state) live, resolved to an absolute path. @default './data' */
  readonly dataDir: string;
  /** LOG_LEVEL. @default 'info' */
  readonly logLevel: LogLevel;
  readonly http: HttpConfig;
  readonly clickhouse: ClickHouseConfig;
  readonly analyst: AnalystConfig;
  readonly postgres: PostgresConfig;
  readonly events: EventsConfig;
  readonly dimensions: DimensionsConfig;
  readonly ingest: IngestConfig;
  readonly evaluation: EvaluationConfig;
  readonly policies: PoliciesConfig;
  readonly destinations: DestinationsConfig;
  readonly silences: SilencesConfig;
  readonly delivery: DeliveryConfig;
  readonly channels: ChannelsConfig;
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** Reads one variable at a time, recording problems instead of throwing at the first one. */
class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  optional(name: string): string | null {
    return this.raw(name) ?? null;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const parsed = /^-?\d+$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      return this.fail(name, `must be an integer from ${min} to ${max}`, value, fallback);
    }
    return parsed;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      return this.fail(name, `must be one of ${allowed.join(', ')}`, value, fallback);
    }
    return value as T;
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (['1', 'true', 'yes'].includes(value.toLowerCase())) return true;
    if (['0', 'false', 'no'].includes(value.toLowerCase())) return false;
    return this.fail(name, 'must be 1/true/yes or 0/false/no', value, fallback);
  }

  url(name: string, protocols: readonly string[], fallback: string | null): string | null {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    try {
      const parsed = new URL(value);
      if (protocols.includes(parsed.protocol)) return value;
    } catch {
      // reported below
    }
    return this.fail(name, `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`, redactUrl(value), fallback);
  }

  /** An origin such as https://hooks.slack.com: scheme, host and port only. */
  origin(name: string, value: string): string {
    try {
      const parsed = new URL(value);
      if ((parsed.protocol === 'https:' || parsed.protocol === 'http:') && parsed.origin === value.replace(/\/$/, '')) {
        return parsed.origin;
      }
    } catch {
      // reported below
    }
    return this.fail(name, 'must be an origin such as https://example.com (no path)', value, value);
  }

  /** Comma-separated integers, e.g. 10000,60000. */
  integerList(name: string, fallback: readonly number[], min: number, max: number, maxItems: number): readonly number[] {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const items = value.split(',').map((v) => v.trim());
    const parsed = items.map((v) => (/^\d+$/.test(v) ? Number(v) : NaN));
    if (items.length > maxItems || parsed.some((n) => !Number.isSafeInteger(n) || n < min || n > max)) {
      return this.fail(name, `must be 1 to ${maxItems} comma-separated integers from ${min} to ${max}`, value, fallback);
    }
    return parsed;
  }

  fail<T>(name: string, rule: string, value: string, fallback: T): T {
    this.problems.push(`${name} ${rule} (got ${JSON.stringify(value)})`);
    return fallback;
  }
}

/** Hides a password in a URL so it can be shown in an error message. */
function redactUrl(value: string): string {
  return value.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
}

export function loadConfig(env: Env = process.env): Config {
  const read = new EnvReader(env);

  const port = read.integer('PORT', 8080, 0, 65535);
  const logsPortRaw = read.raw('LOGS_PORT');
  const logsPort = logsPortRaw === undefined ? null : read.integer('LOGS_PORT', 0, 0, 65535);

  const database = read.string('CLICKHOUSE_DATABASE', 'alertmon');
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(database)) {
    read.fail('CLICKHOUSE_DATABASE', 'must be an identifier (letters, digits, _; not starting with a digit)', database, null);
  }

  const adminToken = read.optional('ADMIN_TOKEN');
  if (adminToken !== null && adminToken.length < 16) {
    read.problems.push('ADMIN_TOKEN must be at least 16 characters long (got a shorter value)');
  }

  const dataDir = path.resolve(read.string('DATA_DIR', './data'));
  const workspaceRate = read.raw('INGEST_WORKSPACE_RECORDS_PER_S');
  const ingest: IngestConfig = {
    maxBatchRecords: read.integer('INGEST_MAX_BATCH_RECORDS', 1_000, 250, 10_000),
    maxPoints: read.integer('INGEST_MAX_POINTS', 50_000, 1_000, 1_000_000),
    writerStallS: read.integer('INGEST_WRITER_STALL_S', 60, 1, 86_400),
    journalDir: path.resolve(read.string('JOURNAL_DIR', path.join(dataDir, 'journal'))),
    journalMaxBytes: read.integer('INGEST_JOURNAL_MAX_BYTES', 1024 ** 3, 1024 ** 2, 1024 ** 4),
    journalSegmentBytes: read.integer('INGEST_JOURNAL_SEGMENT_BYTES', 64 * 1024 ** 2, 64 * 1024, 1024 ** 3),
    insertBlockRecords: read.integer('INGEST_INSERT_BLOCK_RECORDS', 50_000, 1, 1_000_000),
    flushIntervalMs: read.integer('INGEST_FLUSH_INTERVAL_MS', 250, 0, 10_000),
    workspaceRecordsPerS: workspaceRate === undefined ? null : read.integer('INGEST_WORKSPACE_RECORDS_PER_S', 0, 1, 100_000_000),
    workspaceBurstS: read.integer('INGEST_WORKSPACE_BURST_S', 3, 1, 3_600),
    maxConcurrentRequests: read.integer('INGEST_MAX_CONCURRENT_REQUESTS', 48, 1, 100_000),
    shutdownDrainMs: read.integer('INGEST_SHUTDOWN_DRAIN_MS', 10_000, 0, 600_000),
    dedupMaxIds: read.integer('INGEST_DEDUP_MAX_IDS', 10_000_000, 1_000, 1_000_000_000),
    journalUrl: read.optional('JOURNAL_URL'),
    journalStream: read.string('JOURNAL_STREAM', 'alertmon'),
    journalMaxAgeS: read.integer('JOURNAL_MAX_AGE_S', 7 * 86_400, 60, 365 * 86_400),
    journalAckWaitMs: read.integer('JOURNAL_ACK_WAIT_MS', 30_000, 1_000, 3_600_000),
  };
  if (ingest.journalUrl !== null && !ingest.journalUrl.split(',').every((u) => /^(nats|tls):\/\/[^\s/]+\/?$/.test(u.trim()))) {
    read.problems.push(
      `JOURNAL_URL must be nats://host:port (comma-separated for several servers) (got ${JSON.stringify(ingest.journalUrl.replace(/\/\/[^@/]*@/, '//…@'))})`,
    );
  }
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(ingest.journalStream)) {
    read.problems.push(`JOURNAL_STREAM must be 1-64 letters, digits, _ or - (got ${JSON.stringify(ingest.journalStream)})`);
  }

  const discordOrigins = read
    .string('DISCORD_WEBHOOK_ORIGINS', 'https://discord.com,https://discordapp.com')
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '')
    .map((o) => read.origin('DISCORD_WEBHOOK_ORIGINS', o));

  const config: Config = {
    role: read.oneOf('ROLE', ROLES, 'all'),
    dataDir,
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    http: {
      host: read.string('HOST', '127.0.0.1'),
      port,
      logsPort,
      shutdownTimeoutMs: read.integer('SHUTDOWN_TIMEOUT_MS', 30_000, 0, 600_000),
      adminToken,
      publicRequestsPerMinute: read.integer('PUBLIC_RATE_LIMIT_PER_MINUTE', 120, 1, 1_000_000),
      publicUrl: read.url('PUBLIC_URL', ['http:', 'https:'], null)?.replace(/\/+$/, '') ?? null,
    },
    clickhouse: {
      url: read.url('CLICKHOUSE_URL', ['http:', 'https:'], null),
      user: read.string('CLICKHOUSE_USER', 'default'),
      password: read.string('CLICKHOUSE_PASSWORD', ''),
      database,
    },
    analyst: {
      maxMemoryBytes: read.integer('ANALYST_MAX_MEMORY_BYTES', 1024 ** 3, 16 * 1024 ** 2, 1024 ** 4),
      maxConcurrentQueries: read.integer('ANALYST_MAX_CONCURRENT_QUERIES', 2, 1, 64),
    },
    postgres: {
      url: read.url('DATABASE_URL', ['postgres:', 'postgresql:'], null),
      embeddedSharedBuffersMb: read.integer('EMBEDDED_POSTGRES_SHARED_BUFFERS_MB', 128, 1, 1024),
    },
    events: { maxDefinitionsPerWorkspace: read.integer('WORKSPACE_MAX_EVENT_DEFINITIONS', 10_000, 1, 10_000_000) },
    dimensions: { maxSeries: read.integer('DIMENSION_MAX_SERIES', 10_000, 1, 1_000_000) },
    ingest,
    evaluation: {
      intervalMs: read.integer('EVAL_INTERVAL_MS', 15_000, 100, 86_400_000),
      graceMs: read.integer('EVAL_GRACE_MS', 5_000, 0, 3_600_000),
    },
    policies: {
      maxPerWorkspace: read.integer('WORKSPACE_MAX_POLICIES', 10_000, 1, 1_000_000),
      maxGroups: read.integer('POLICY_MAX_GROUPS', 10_000, 1, 1_000_000),
    },
    destinations: { maxPerWorkspace: read.integer('WORKSPACE_MAX_DESTINATIONS', 1_000, 1, 100_000) },
    silences: { maxPerWorkspace: read.integer('WORKSPACE_MAX_SILENCES', 1000, 1, 100_000) },
    delivery: {
      // About 10 s, 1 min, 5 min, 30 min and 2 h: six tries over about 2.5 hours.
      retryScheduleMs: read.integerList('DELIVERY_RETRY_SCHEDULE_MS', [10_000, 60_000, 300_000, 1_800_000, 7_200_000], 1, 86_400_000, 10),
      timeoutMs: read.integer('DELIVERY_TIMEOUT_MS', 10_000, 100, 120_000),
      leaseGraceMs: read.integer('DELIVERY_LEASE_GRACE_MS', 30_000, 1_000, 3_600_000),
      pollIntervalMs: read.integer('DELIVERY_POLL_INTERVAL_MS', 250, 10, 3_600_000),
      concurrency: read.integer('DELIVERY_CONCURRENCY', 64, 1, 1000),
      destinationConcurrency: read.integer('DELIVERY_DESTINATION_CONCURRENCY', 32, 1, 1000),
      workspaceConcurrency: read.integer('DELIVERY_WORKSPACE_CONCURRENCY', 48, 1, 1000),
      escalationMinuteMs: read.integer('ESCALATION_MINUTE_MS', 60_000, 10, 60_000),
      escalationPollIntervalMs: read.integer('ESCALATION_POLL_INTERVAL_MS', 1_000, 10, 60_000),
      allowPrivateTargets: read.boolean('ALLOW_PRIVATE_TARGETS', false),
    },
    channels: {
      slackWebhookOrigin: read.origin('SLACK_WEBHOOK_ORIGIN', read.string('SLACK_WEBHOOK_ORIGIN', 'https://hooks.slack.com')),
      discordWebhookOrigins: discordOrigins,
      telegramApiOrigin: read.origin('TELEGRAM_API_ORIGIN', read.string('TELEGRAM_API_ORIGIN', 'https://api.telegram.org')),
      smtpUrl: read.url('SMTP_URL', ['smtp:', 'smtps:'], null),
      emailFrom: read.string('EMAIL_FROM', 'alertmon@localhost'),
    },
  };

  if (logsPort !== null && logsPort !== 0 && logsPort === port) {
    read.problems.push(`LOGS_PORT must differ from PORT (both are ${port})`);
  }

  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return deepFreeze(config);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Roles that serve each part of the HTTP interface. */
export function servesControlPlane(role: Role): boolean {
  return role === 'all' || role === 'api';
}
export function servesIngest(role: Role): boolean {
  return role === 'all' || role === 'ingest';
}
/** A process that only publishes to a shared journal (ROLE=ingest with JOURNAL_URL) opens no ClickHouse. */
export function usesClickHouse(config: Pick<Config, 'role' | 'ingest'>): boolean {
  return !(config.role === 'ingest' && config.ingest.journalUrl !== null);
}
export function runsWorker(role: Role): boolean {
  return role === 'all' || role === 'worker';
}
