// npm run bench:ingest -- [--records 1000000] [--concurrency 16] [--direct-batch 50000]
// Measures log ingestion end to end: the service runs in a child process on fresh embedded
// stores and takes pre-generated batches from concurrent clients; then, with the service
// stopped, the same rows go straight into a fresh embedded ClickHouse as the ceiling to
// compare with. Set the INGEST_* variables (README, Configuration) in the environment to try other
// group-commit settings.
import { ConfigError } from '../../src/config.js';
import { onCleanup, temporaryDir } from './lib/cleanup.js';
import { runBench, UsageError } from './lib/runner.js';
import { generateBatches, totalBytes, type RequestBatch } from './lib/dataset.js';
import { measureDirectInsert } from './lib/directInsert.js';
import { runLoad, type LoadResult } from './lib/load.js';
import { describeIngestSettings, ingestSettings, parseOptions, USAGE, type BenchOptions, type IngestSettings } from './lib/options.js';
import { formatReport, type CountCheck, type ServiceFigures } from './lib/report.js';
import { readProcessMemory, sampleRss, type RssSamples } from './lib/rss.js';
import { issueWorkspaceToken, metricValue, queryNumber, scrapeMetrics, startServiceProcess, type ServiceProcess } from './lib/serviceProcess.js';

const RSS_SAMPLE_EVERY_MS = 200;

function progress(message: string): void {
  process.stderr.write(`${message}\n`);
}

function generate(options: BenchOptions): RequestBatch[] {
  const started = performance.now();
  const batches = generateBatches(options.records, options.recordsPerRequest, options.seed, Date.now());
  const mib = (totalBytes(batches) / 1024 ** 2).toFixed(0);
  progress(
    `generated ${options.records.toLocaleString('en-US')} records in ${batches.length} bodies (${mib} MiB) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return batches;
}

async function loadTheService(service: ServiceProcess, batches: RequestBatch[], options: BenchOptions): Promise<{ load: LoadResult; rss: RssSamples }> {
  const token = await issueWorkspaceToken(service, 'bench');
  progress(`load: ${options.concurrency} concurrent clients…`);
  // Registered after the service, so an interrupt cuts the load before it stops the service.
  const interrupt = new AbortController();
  onCleanup(() => interrupt.abort());
  const sampler = sampleRss(service.pid, RSS_SAMPLE_EVERY_MS);
  const load = await runLoad({
    url: service.url,
    token,
    batches,
    concurrency: options.concurrency,
    maxDurationMs: options.maxLoadMinutes * 60_000,
    signal: interrupt.signal,
  });
  const rss = sampler.stop();
  if (load.timedOut) throw new Error(`the load phase exceeded its limit of ${options.maxLoadMinutes} min (--max-load-minutes); aborted`);
  if (load.aborted) throw new Error('the load was interrupted');
  return { load, rss };
}

async function serviceFigures(service: ServiceProcess, rss: RssSamples): Promise<ServiceFigures> {
  const metrics = await scrapeMetrics(service);
  return {
    rssAtStartBytes: rss.first,
    peakRssBytes: rss.peak,
    highWaterMarkBytes: readProcessMemory(service.pid)?.highWaterMark ?? null,
    clickhouseInserts: metricValue(metrics, 'alertmon_clickhouse_insert_seconds_count'),
    clickhouseInsertSeconds: metricValue(metrics, 'alertmon_clickhouse_insert_seconds_sum'),
    ingestedRecords: metricValue(metrics, 'alertmon_ingested_records_total'),
  };
}

async function checkCounts(service: ServiceProcess, expected: number, accepted: number): Promise<CountCheck> {
  const logs = await queryNumber(service, 'SELECT count() AS n FROM logs');
  const rollupMinute = await queryNumber(service, 'SELECT sum(count) AS n FROM rollup_minute');
  return { expected, logs, rollupMinute, passed: accepted === expected && logs === expected && rollupMinute === expected };
}

async function run(options: BenchOptions, ingest: IngestSettings): Promise<boolean> {
  progress(`ingest settings: ${describeIngestSettings(ingest)}`);
  const batches = generate(options);

  progress('starting the service on fresh embedded stores…');
  const service = await startServiceProcess(temporaryDir('alertmon-bench-service-'), ingest.env);
  const { load, rss } = await loadTheService(service, batches, options);
  progress(`load done in ${(load.wallMs / 1000).toFixed(1)} s; checking what was stored…`);
  const figures = await serviceFigures(service, rss);
  const check = await checkCounts(service, options.records, load.acceptedRecords);
  const exitCode = await service.stop();
  if (exitCode !== 0) progress(`the service exited with code ${exitCode}`);

  progress(`direct bulk inserts of ${options.directBatch.toLocaleString('en-US')} rows into a fresh embedded ClickHouse…`);
  const direct = await measureDirectInsert(batches, options.directBatch, temporaryDir('alertmon-bench-direct-'));

  process.stdout.write(
    formatReport({
      ingestSettings: describeIngestSettings(ingest),
      concurrency: options.concurrency,
      recordsPerRequest: options.recordsPerRequest,
      recordsGenerated: options.records,
      requestsGenerated: batches.length,
      load,
      service: figures,
      check,
      direct,
    }),
  );
  return check.passed && direct.storedRows === options.records;
}

/** The options and settings of this run, or the usage text and exit when they are wrong. */
function optionsOrExit(): { options: BenchOptions; ingest: IngestSettings } {
  try {
    return { options: parseOptions(process.argv.slice(2)), ingest: ingestSettings(process.env) };
  } catch (err) {
    if (err instanceof UsageError && err.message === '') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    if (err instanceof UsageError || err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
      process.exit(2);
    }
    throw err;
  }
}

const { options, ingest } = optionsOrExit();
await runBench('ingest', () => run(options, ingest));
