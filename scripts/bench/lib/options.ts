// Command-line options of the ingest benchmark, and the INGEST_* settings handed to the service.
import { parseArgs } from 'node:util';
import { loadConfig, type IngestConfig } from '../../../src/config.js';
import { PORTABLE_MAX_LOGS_PER_REQUEST } from '../../../src/ingest/intake/recordRules.js';
import { UsageError } from './runner.js';

export interface BenchOptions {
  readonly records: number;
  readonly concurrency: number;
  readonly recordsPerRequest: number;
  readonly directBatch: number;
  readonly seed: number;
  readonly maxLoadMinutes: number;
  readonly openRates: readonly number[];
  readonly openSeconds: number;
  readonly overloadClients: number;
  readonly overloadSeconds: number;
  /** Which journals to measure: the local one, the JetStream stream (JOURNAL_URL), or both. */
  readonly journals: readonly ('local' | 'stream')[];
  /** Keys declared in the dimensions phase (0: no such phase), series per event name, rounds. */
  readonly dimensions: number;
  readonly series: number;
  readonly dimensionRounds: number;
}

export const INGEST_VARIABLES = [
  'INGEST_FLUSH_INTERVAL_MS',
  'INGEST_INSERT_BLOCK_RECORDS',
  'INGEST_JOURNAL_MAX_BYTES',
  'INGEST_MAX_CONCURRENT_REQUESTS',
  'INGEST_WORKSPACE_RECORDS_PER_S',
  'INGEST_DEDUP_MAX_IDS',
] as const;

export interface IngestSettings {
  /** The INGEST_* variables as the user set them, passed to the service unchanged. */
  readonly env: Readonly<Record<string, string>>;
  /** What the service runs with: the variables above over its defaults. */
  readonly effective: IngestConfig;
}

export const USAGE = `usage: npm run bench:ingest -- [options]
  --records <n>            records of the closed loop, and of the direct bulk insert (default 1000000)
  --concurrency <n>        closed-loop clients, one request in flight each (default 64)
  --records-per-request <n> records per request, at most ${PORTABLE_MAX_LOGS_PER_REQUEST} (default ${PORTABLE_MAX_LOGS_PER_REQUEST})
  --direct-batch <n>       rows per direct bulk insert (default 50000)
  --seed <n>               seed of the generated records (default 1)
  --max-load-minutes <n>   abort when the closed loop takes longer (default 15)
  --open-rates <n,n>       open-loop offered rates, records/s (default 20000,50000)
  --open-seconds <n>       duration of each open loop (default 10)
  --overload-clients <n>   clients of the overload phase (default 256)
  --overload-seconds <n>   duration of the overload phase (default 10)
  --journals <list>        local, stream or both (default local,stream): stream runs a writer and one, then two,
                           ROLE=ingest processes on NATS (BENCH_NATS_URL, default nats://127.0.0.1:4222) and a
                           Postgres server (BENCH_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/postgres)
  --dimensions <n>         also run the dimensions phase (local journal) with n (1–8) keys declared on every event name, against the
                           same records without a declaration, alternating (default: no such phase)
  --series <n>             series per event name in the dimensions phase (default 1000)
  --dimension-rounds <n>   rounds of the dimensions phase, each sending --records records into both (default 2)
environment: ${INGEST_VARIABLES.join(', ')} are passed to the service;
  the stores live under TMPDIR (default /tmp), whose disk the figures depend on.`;

export function parseOptions(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      records: { type: 'string' },
      concurrency: { type: 'string' },
      'records-per-request': { type: 'string' },
      'direct-batch': { type: 'string' },
      seed: { type: 'string' },
      'max-load-minutes': { type: 'string' },
      'open-rates': { type: 'string' },
      'open-seconds': { type: 'string' },
      'overload-clients': { type: 'string' },
      'overload-seconds': { type: 'string' },
      journals: { type: 'string' },
      dimensions: { type: 'string' },
      series: { type: 'string' },
      'dimension-rounds': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) throw new UsageError('');
  return {
    records: positiveInteger('--records', values.records, 1_000_000),
    concurrency: positiveInteger('--concurrency', values.concurrency, 64),
    recordsPerRequest: positiveInteger('--records-per-request', values['records-per-request'], PORTABLE_MAX_LOGS_PER_REQUEST, PORTABLE_MAX_LOGS_PER_REQUEST),
    directBatch: positiveInteger('--direct-batch', values['direct-batch'], 50_000),
    seed: positiveInteger('--seed', values.seed, 1),
    maxLoadMinutes: positiveInteger('--max-load-minutes', values['max-load-minutes'], 15),
    openRates: (values['open-rates'] ?? '20000,50000').split(',').map((r) => positiveInteger('--open-rates', r.trim(), 1)),
    openSeconds: positiveInteger('--open-seconds', values['open-seconds'], 10),
    overloadClients: positiveInteger('--overload-clients', values['overload-clients'], 256),
    overloadSeconds: positiveInteger('--overload-seconds', values['overload-seconds'], 10),
    journals: journalsOf(values.journals ?? 'local,stream'),
    dimensions: values.dimensions === undefined ? 0 : positiveInteger('--dimensions', values.dimensions, 0, 8),
    series: positiveInteger('--series', values.series, 1_000, 10_000),
    dimensionRounds: positiveInteger('--dimension-rounds', values['dimension-rounds'], 2, 20),
  };
}

function journalsOf(value: string): ('local' | 'stream')[] {
  const names = value.split(',').map((j) => j.trim());
  if (names.length === 0 || names.some((j) => j !== 'local' && j !== 'stream'))
    throw new UsageError(`--journals takes local, stream or both (got ${JSON.stringify(value)})`);
  return names as ('local' | 'stream')[];
}

function positiveInteger(name: string, value: string | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  const parsed = /^\d+$/.test(value.replace(/_/g, '')) ? Number(value.replace(/_/g, '')) : NaN;
  if (!Number.isSafeInteger(parsed) || parsed < 1 || parsed > max) {
    throw new UsageError(`${name} must be an integer from 1 to ${max} (got ${JSON.stringify(value)})`);
  }
  return parsed;
}

/** Reads the INGEST_* variables and checks them with the service's own rules, before anything starts. */
export function ingestSettings(env: NodeJS.ProcessEnv): IngestSettings {
  const given: Record<string, string> = {};
  for (const name of INGEST_VARIABLES) {
    const value = env[name]?.trim();
    if (value) given[name] = value;
  }
  return { env: given, effective: loadConfig(given).ingest };
}

/** e.g. "INGEST_FLUSH_INTERVAL_MS=20, INGEST_INSERT_BLOCK_RECORDS=50000 (default), …" */
export function describeIngestSettings(settings: IngestSettings): string {
  const values: Record<(typeof INGEST_VARIABLES)[number], number | string> = {
    INGEST_FLUSH_INTERVAL_MS: settings.effective.flushIntervalMs,
    INGEST_INSERT_BLOCK_RECORDS: settings.effective.insertBlockRecords,
    INGEST_JOURNAL_MAX_BYTES: settings.effective.journalMaxBytes,
    INGEST_MAX_CONCURRENT_REQUESTS: settings.effective.maxConcurrentRequests,
    INGEST_WORKSPACE_RECORDS_PER_S: settings.effective.workspaceRecordsPerS ?? 'fair share',
    INGEST_DEDUP_MAX_IDS: settings.effective.dedupMaxIds,
  };
  return INGEST_VARIABLES.map((name) => `${name}=${values[name]}${name in settings.env ? '' : ' (default)'}`).join(', ');
}
