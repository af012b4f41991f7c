// npm run bench:ingest -- [--records 1000000] [--concurrency 64] [--open-rates 20000,50000] …
// Measures log ingestion end to end, in one run: the service runs in a child process on fresh
// embedded stores, and takes (1) a closed loop of `concurrency` clients, (2) open loops at
// fixed offered rates, latency counted from each batch's scheduled send time, while a probe
// measures how long an acknowledged record takes to show in the rollups, and (3) an overload
// of 256 clients while a reader lists event definitions. Then the stored counts are checked
// against what was acknowledged (raw table and the three rollups, through the analyst views),
// and, with the service stopped, the closed loop's rows go straight into a fresh embedded
// ClickHouse in bulk inserts: the reference figure. With --dimensions N, the same service then
// takes records with N keys declared against the same records without (lib/dimensionPhase.ts),
// its own reference. INGEST_* variables (docs/operations.md) pass to the service.
import { ConfigError } from '../../src/config.js';
import { onCleanup, temporaryDir } from './lib/cleanup.js';
import { generateBatches, totalBytes, type RequestBatch } from './lib/dataset.js';
import { formatDimensionReport, measureDimensions } from './lib/dimensionPhase.js';
import { measureDirectInsert } from './lib/directInsert.js';
import { runLoad } from './lib/load.js';
import { describeIngestSettings, ingestSettings, parseOptions, USAGE, type BenchOptions, type IngestSettings } from './lib/options.js';
import { openLoop, overload, probeVisibility, type OpenLoopResult } from './lib/phases.js';
import { formatReport, type ServiceFigures } from './lib/report.js';
import { ownCpuSeconds, processCpuSeconds, readProcessMemory, sampleRss } from './lib/processStats.js';
import { runBench, UsageError } from './lib/runner.js';
import { formatStreamReport, measureStream, streamCountsOk } from './lib/streamPhase.js';
import { countStored, issueWorkspaceToken, metricValue, scrapeMetrics, sleep, startBenchService, type BenchService } from './lib/benchService.js';

const RSS_SAMPLE_EVERY_MS = 200;
const WORKSPACES = ['bench', 'bench-open', 'bench-probe', 'bench-overload'] as const;

function progress(message: string): void {
  process.stderr.write(`${message}\n`);
}

function generate(records: number, options: BenchOptions, seed: number): RequestBatch[] {
  const batches = generateBatches(records, options.recordsPerRequest, seed, Date.now());
  progress(`generated ${records.toLocaleString('en-US')} records in ${batches.length} bodies (${(totalBytes(batches) / 1024 ** 2).toFixed(0)} MiB)`);
  return batches;
}

async function serviceFigures(
  service: BenchService,
  rss: { first: number | null; peak: number | null },
  highWaterMarkBytes: number | null,
): Promise<ServiceFigures> {
  const metrics = await scrapeMetrics(service);
  return {
    rssAtStartBytes: rss.first,
    peakRssBytes: rss.peak,
    highWaterMarkBytes,
    highWaterMarkAfterChecksBytes: readProcessMemory(service.pid)?.highWaterMark ?? null,
    clickhouseInserts: metricValue(metrics, 'alertmon_clickhouse_insert_seconds_count'),
    clickhouseInsertSeconds: metricValue(metrics, 'alertmon_clickhouse_insert_seconds_sum'),
    ingestedRecords: metricValue(metrics, 'alertmon_ingested_records_total'),
    fsyncs: metricValue(metrics, 'alertmon_journal_fsync_seconds_count'),
    fsyncSeconds: metricValue(metrics, 'alertmon_journal_fsync_seconds_sum'),
  };
}

/** Waits until the journal has moved everything into ClickHouse. */
async function drained(service: BenchService): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (metricValue(await scrapeMetrics(service), 'alertmon_journal_backlog_records') !== 0) {
    if (Date.now() > deadline) throw new Error('the journal did not drain within 120 s');
    await sleep(100);
  }
}

async function run(options: BenchOptions, ingest: IngestSettings): Promise<boolean> {
  progress(`ingest settings: ${describeIngestSettings(ingest)}`);
  const closedBatches = generate(options.records, options, options.seed);
  const openBatches = options.openRates.map((rate, i) => generate(rate * options.openSeconds, options, options.seed + 1 + i));
  const local = options.journals.includes('local') ? await runLocal(options, ingest, closedBatches, openBatches) : true;
  if (!options.journals.includes('stream')) return local;
  const natsUrl = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';
  const postgresUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const variants = await measureStream(
    {
      natsUrl,
      postgresUrl,
      ingestEnv: ingest.env,
      concurrency: options.concurrency,
      closedBatches,
      openBatches,
      openRates: options.openRates,
      maxLoadMinutes: options.maxLoadMinutes,
    },
    progress,
  );
  process.stdout.write(formatStreamReport(variants));
  return local && streamCountsOk(variants);
}

async function runLocal(options: BenchOptions, ingest: IngestSettings, closedBatches: RequestBatch[], openBatches: RequestBatch[][]): Promise<boolean> {
  const overloadBody = generateBatches(options.recordsPerRequest, options.recordsPerRequest, options.seed + 99, Date.now())[0]!;
  // The overload sends one body again and again: without log_ids, each accepted one counts.
  const records = JSON.parse(overloadBody.body.toString()) as Record<string, unknown>[];
  const withoutIds = { ...overloadBody, body: Buffer.from(JSON.stringify(records.map(({ log_id: _, ...r }) => r))) };

  progress('starting the service on fresh embedded stores…');
  const service = await startBenchService(temporaryDir('alertmon-bench-service-'), ingest.env);
  const tokens = Object.fromEntries(await Promise.all(WORKSPACES.map(async (w) => [w, await issueWorkspaceToken(service, w)] as const)));
  const readerToken = await issueWorkspaceToken(service, 'bench-reader');
  const interrupt = new AbortController();
  onCleanup(() => interrupt.abort());
  const sampler = sampleRss(service.pid, RSS_SAMPLE_EVERY_MS);

  progress(`closed loop: ${options.concurrency} clients…`);
  const serviceCpuBefore = processCpuSeconds(service.pid);
  const clientCpuBefore = process.cpuUsage();
  const load = await runLoad({
    url: service.url,
    token: tokens.bench!,
    batches: closedBatches,
    concurrency: options.concurrency,
    maxDurationMs: options.maxLoadMinutes * 60_000,
    signal: interrupt.signal,
  });
  if (load.timedOut || load.aborted) throw new Error('the closed loop was cut short');
  await drained(service);
  // Until its records are in ClickHouse: the inserts are part of their cost.
  const serviceCpuAfter = processCpuSeconds(service.pid);
  const closedLoopCpu = {
    serviceSeconds: serviceCpuBefore === null || serviceCpuAfter === null ? null : serviceCpuAfter - serviceCpuBefore,
    clientSeconds: ownCpuSeconds(clientCpuBefore),
  };

  const openLoops: OpenLoopResult[] = [];
  let stopProbe!: () => void;
  const probe = probeVisibility(service.url, tokens['bench-probe']!, new Promise<void>((resolve) => (stopProbe = resolve)));
  for (const [i, rate] of options.openRates.entries()) {
    progress(`open loop at ${rate.toLocaleString('en-US')} records/s for ${options.openSeconds} s…`);
    openLoops.push(await openLoop(service.url, tokens['bench-open']!, openBatches[i]!, rate));
  }
  stopProbe();
  const visibility = await probe;
  await drained(service);

  progress(`overload: ${options.overloadClients} clients for ${options.overloadSeconds} s, with a control-plane reader…`);
  const overloadResult = await overload(
    service.url,
    tokens['bench-overload']!,
    readerToken,
    withoutIds,
    options.overloadClients,
    options.overloadSeconds * 1000,
    50,
  );
  const rss = sampler.stop();
  await drained(service);
  // The memory ingest took; the count checks next hold every stored log_id at once.
  const highWaterMark = readProcessMemory(service.pid)?.highWaterMark ?? null;

  const acknowledged =
    load.acceptedRecords + openLoops.reduce((n, o) => n + o.acceptedRecords, 0) + visibility.acceptedRecords + overloadResult.acceptedRecords;
  const counts = await countStored(service, WORKSPACES, acknowledged);
  const figures = await serviceFigures(service, rss, highWaterMark);
  const dimensionOptions = { ...options, rounds: options.dimensionRounds };
  const dimensions =
    options.dimensions > 0
      ? formatDimensionReport(await measureDimensions(service, dimensionOptions, () => drained(service), progress), dimensionOptions)
      : null;
  const exitCode = await service.stop();
  if (exitCode !== 0) progress(`the service exited with code ${exitCode}`);

  progress(`direct bulk inserts of ${options.directBatch.toLocaleString('en-US')} rows into a fresh embedded ClickHouse…`);
  const direct = await measureDirectInsert(closedBatches, options.directBatch, temporaryDir('alertmon-bench-direct-'));
  process.stdout.write(
    formatReport({
      ingestSettings: describeIngestSettings(ingest),
      recordsPerRequest: options.recordsPerRequest,
      closedLoop: { clients: options.concurrency, load, cpu: closedLoopCpu },
      openLoops,
      visibilityLagsMs: visibility.lagsMs,
      overload: overloadResult,
      service: figures,
      counts,
      direct,
    }),
  );
  if (dimensions) process.stdout.write(dimensions.text);
  return (dimensions?.met ?? true) && counts.logs === acknowledged && counts.uniqueLogIds === acknowledged && direct.storedRows === options.records;
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
