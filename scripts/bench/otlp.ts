// npm run bench:otlp -- [--points 200000] [--concurrency 16] [--rounds 3]
// OTLP protobuf ingest (POST /v1/metrics) in data points/s against POST /v1.0/logs in
// records/s, in one run on one service (a child process on fresh embedded stores): rounds
// alternate the two routes, each sending the same number of points / records in requests of
// 1,000 with `concurrency` clients, timed until every request is answered; then the journal is
// drained and the stored counts checked (raw table and day rollups): nothing lost, nothing twice.
import { parseArgs } from 'node:util';
import { ExportMetricsServiceRequest } from '../../src/ingest/intake/otlpProto.js';
import { onCleanup, temporaryDir } from './lib/cleanup.js';
import { generateBatches, type RequestBatch } from './lib/dataset.js';
import { runLoad } from './lib/load.js';
import { runBench } from './lib/runner.js';
import { issueWorkspaceToken, metricValue, queryNumber, scrapeMetrics, sleep, startBenchService } from './lib/benchService.js';

const PER_REQUEST = 1000;

/** Export requests of PER_REQUEST gauge points each: 10 services × 10 metrics × 10 attribute sets, each request its own second. */
function otlpBatches(points: number, now: number): RequestBatch[] {
  const batches: RequestBatch[] = [];
  for (let r = 0; r * PER_REQUEST < points; r++) {
    const timeUnixNano = `${BigInt(now - 3_600_000 + r * 1000) * 1_000_000n}`;
    const resourceMetrics = Array.from({ length: 10 }, (_, s) => ({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: `agent-${s}` } }] },
      scopeMetrics: [
        {
          scope: { name: 'bench' },
          metrics: Array.from({ length: 10 }, (_, m) => ({
            name: `metric.${m}`,
            gauge: {
              dataPoints: Array.from({ length: 10 }, (_, a) => ({
                timeUnixNano,
                asDouble: ((r * 7919 + s * 97 + m * 13 + a) % 100000) / 1000,
                attributes: [{ key: 'host', value: { stringValue: `host-${a}` } }],
              })),
            },
          })),
        },
      ],
    }));
    const body = Buffer.from(ExportMetricsServiceRequest.encode(ExportMetricsServiceRequest.fromObject({ resourceMetrics })).finish());
    batches.push({ body, records: PER_REQUEST });
  }
  return batches;
}

async function main(): Promise<boolean> {
  const { values } = parseArgs({
    options: { points: { type: 'string', default: '200000' }, concurrency: { type: 'string', default: '16' }, rounds: { type: 'string', default: '3' } },
  });
  const points = Number(values.points);
  const concurrency = Number(values.concurrency);
  const rounds = Number(values.rounds);
  const now = Date.now();
  // Requests of 1,000 records on both routes (the logs route's limit defaults to 250 here).
  const service = await startBenchService(temporaryDir('alertmon-bench-otlp-'), { INGEST_MAX_BATCH_RECORDS: String(PER_REQUEST) });
  const interrupt = new AbortController();
  onCleanup(() => interrupt.abort());
  const tokens = { json: await issueWorkspaceToken(service, 'bench-json'), otlp: await issueWorkspaceToken(service, 'bench-otlp') };
  const rates = { json: [] as number[], otlp: [] as number[] };
  const sent = { json: 0, otlp: 0 };
  for (let round = 0; round < rounds; round++) {
    for (const route of ['json', 'otlp'] as const) {
      const batches = route === 'json' ? generateBatches(points, PER_REQUEST, 1000 + round, now) : otlpBatches(points, now - round * 600_000);
      const load = await runLoad({
        url: service.url,
        token: tokens[route],
        batches,
        concurrency,
        maxDurationMs: 600_000,
        signal: interrupt.signal,
        ...(route === 'otlp' ? { path: '/v1/metrics', contentType: 'application/x-protobuf' } : {}),
      });
      if (load.otherStatuses.size > 0 || load.transportErrors > 0) throw new Error(`${route}: failures ${load.errorSamples.join(' | ')}`);
      const rate = load.acceptedRecords / (load.wallMs / 1000);
      rates[route].push(rate);
      sent[route] += load.acceptedRecords;
      process.stderr.write(`round ${round + 1} ${route === 'json' ? 'POST /v1.0/logs' : 'POST /v1/metrics'}: ${Math.round(rate).toLocaleString('en-US')} /s\n`);
    }
  }
  const deadline = Date.now() + 300_000;
  while (metricValue(await scrapeMetrics(service), 'alertmon_journal_backlog_records') !== 0 && Date.now() < deadline) await sleep(200);
  const stored = async (ws: string) => ({
    logs: await queryNumber(service, `SELECT count() AS n FROM logs WHERE workspace_id = '${ws}'`),
    day: await queryNumber(service, `SELECT sum(count) AS n FROM rollup_day_v WHERE workspace_id = '${ws}'`),
  });
  const json = await stored('bench-json');
  const otlp = await stored('bench-otlp');
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ratio = median(rates.otlp) / median(rates.json);
  const lost = json.logs !== sent.json || json.day !== sent.json || otlp.logs !== sent.otlp || otlp.day !== sent.otlp;
  process.stdout.write(
    [
      `POST /v1.0/logs:  median ${Math.round(median(rates.json)).toLocaleString('en-US')} records/s (rounds: ${rates.json.map(Math.round).join(', ')})`,
      `POST /v1/metrics: median ${Math.round(median(rates.otlp)).toLocaleString('en-US')} data points/s (rounds: ${rates.otlp.map(Math.round).join(', ')})`,
      `ratio (OTLP / JSON, medians): ${ratio.toFixed(2)} (target >= 0.5)`,
      `stored: JSON ${json.logs} rows / ${json.day} in day rollups of ${sent.json} acknowledged; OTLP ${otlp.logs} / ${otlp.day} of ${sent.otlp}${lost ? '  MISMATCH' : ' (nothing lost)'}`,
      '',
    ].join('\n'),
  );
  await service.stop();
  return ratio >= 0.5 && !lost;
}

await runBench('otlp', main);
