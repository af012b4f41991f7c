// npm run bench:delivery -- [--notifications 10000]
// A burst through the webhook channel: N alert notifications are written to the outbox of
// fresh embedded stores, then a delivery worker (ROLE=worker, in a child process of its own)
// starts and sends them all to a local sink. Two bursts in one run: the destination without a
// signing secret (signing off, the reference), then with one (every request signed, Standard
// Webhooks). Prints deliveries per second of each, their ratio, and the worker's RSS. Set
// DELIVERY_CONCURRENCY / DELIVERY_POLL_INTERVAL_MS in the environment to try others.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { newSigningSecret } from '../../src/channels/webhookSignature.js';
import { loadConfig } from '../../src/config.js';
import { openStores, storeOptions } from '../../src/stores/index.js';
import { temporaryDir } from './lib/cleanup.js';
import { runBench } from './lib/runner.js';
import { processCpuSeconds, readProcessMemory, sampleRss } from './lib/processStats.js';
import { scrapeMetrics, sleep, startBenchService } from './lib/benchService.js';

const progress = (message: string) => process.stderr.write(`${message}\n`);

function parseCount(argv: readonly string[]): number {
  const at = argv.indexOf('--notifications');
  const count = at === -1 ? 10_000 : Number(argv[at + 1]);
  if (!Number.isSafeInteger(count) || count < 1) throw new Error('--notifications takes a positive integer');
  return count;
}

interface Sink {
  readonly url: string;
  readonly keys: Set<string>;
  received: number;
  signed: number;
  firstAt: number | null;
  lastAt: number | null;
  close(): Promise<void>;
}

/** A webhook receiver that answers 200 at once and counts distinct Idempotency-Keys. */
async function startSink(): Promise<Sink> {
  const sink: Omit<Sink, 'url' | 'close'> = { keys: new Set(), received: 0, signed: 0, firstAt: null, lastAt: null };
  const server = http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      const now = performance.now();
      sink.firstAt ??= now;
      sink.lastAt = now;
      sink.received++;
      sink.keys.add(String(req.headers['idempotency-key']));
      if (req.headers['webhook-signature']) sink.signed++;
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(sink, {
    url: `http://127.0.0.1:${port}/hook`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** Writes one workspace, a webhook destination and `count` outbox rows, the way alert transitions do. */
async function seed(dataDir: string, sinkUrl: string, count: number, signingSecret: string | null): Promise<void> {
  const stores = await openStores(storeOptions(loadConfig({ DATA_DIR: dataDir })));
  try {
    const db = stores.postgres;
    await db.query(`INSERT INTO workspaces (user_id) VALUES ('bench')`);
    await db.query(
      `INSERT INTO event_definitions (event_id, user_id, agent, event, share_token) VALUES (gen_random_uuid(), 'bench', 'web-1', 'http.latency_ms', 'bench')`,
    );
    await db.query(
      `INSERT INTO policies (policy_id, workspace_id, event_id, title, period, aggregate, condition, threshold, severity)
       SELECT gen_random_uuid(), 'bench', event_id, 'High latency', 'minute', 'max', 'gt', 500, 'critical' FROM event_definitions`,
    );
    await db.query(
      `INSERT INTO destinations (destination_id, workspace_id, channel, url, scope, signing_secret) VALUES (gen_random_uuid(), 'bench', 'webhook', $1, 'all', $2)`,
      [sinkUrl, signingSecret],
    );
    // Resolved alerts: a policy has at most one open alert, and the worker does not look at the status.
    await db.query(
      `INSERT INTO alerts (alert_id, workspace_id, policy_id, event_id, agent, event, title, channel, period, aggregate, condition, threshold,
         severity, value, count, min, max, bucket_start, bucket_end, status, resolved_at)
       SELECT gen_random_uuid(), 'bench', p.policy_id, p.event_id, 'web-1', 'http.latency_ms', p.title, 'default', 'minute', 'max', 'gt', 500,
         'critical', 900 + i, 10, 1, 900 + i, now() - interval '1 minute', now(), 'resolved', now()
       FROM policies p, generate_series(1, $1) AS i`,
      [count],
    );
    await db.query(
      `INSERT INTO alert_notifications (notification_id, workspace_id, alert_id, policy_id, type, alert)
       SELECT gen_random_uuid(), a.workspace_id, a.alert_id, a.policy_id, 'alert.triggered',
         jsonb_build_object('alert_id', a.alert_id, 'policy_id', a.policy_id, 'event_id', a.event_id, 'agent', a.agent, 'event', a.event,
           'title', a.title, 'channel', a.channel, 'period', a.period, 'aggregate', a.aggregate, 'condition', a.condition,
           'threshold', a.threshold, 'severity', a.severity, 'value', a.value, 'count', a.count, 'min', a.min, 'max', a.max,
           'status', 'triggered', 'triggered_at', a.triggered_at, 'acknowledged_at', NULL, 'resolved_at', NULL, 'alerted_at', NULL)
       FROM alerts a`,
    );
  } finally {
    await stores.close();
  }
}

const mib = (bytes: number | null | undefined) => (bytes == null || !Number.isFinite(bytes) ? 'n/a' : `${(bytes / 1024 ** 2).toFixed(0)} MiB`);

interface Burst {
  readonly perSecond: number;
  readonly lines: string[];
}

async function burst(count: number, signed: boolean): Promise<Burst> {
  const label = signed ? 'signing on' : 'signing off';
  const sink = await startSink();
  const dataDir = temporaryDir('alertmon-bench-delivery-');
  let started = performance.now();
  await seed(dataDir, sink.url, count, signed ? newSigningSecret() : null);
  progress(`${label}: seeded ${count.toLocaleString('en-US')} notifications in ${((performance.now() - started) / 1000).toFixed(1)} s; starting the worker…`);

  started = performance.now();
  const worker = await startBenchService(dataDir, { ROLE: 'worker', ALLOW_PRIVATE_TARGETS: '1', LOG_LEVEL: 'warn' });
  const readyAt = performance.now();
  const cpuAtReady = processCpuSeconds(worker.pid);
  const rss = sampleRss(worker.pid, 200);
  const deadline = Date.now() + 30 * 60_000;
  while (sink.keys.size < count && Date.now() < deadline) await sleep(50);
  const doneAt = performance.now();
  const cpuAtDone = processCpuSeconds(worker.pid);
  await sleep(1_000); // anything sent twice would arrive now
  const memory = rss.stop();
  const metrics = await scrapeMetrics(worker);
  const delivered = /alertmon_deliveries_total\{channel="webhook",outcome="delivered"\} (\S+)/.exec(metrics)?.[1] ?? 'n/a';
  const highWater = readProcessMemory(worker.pid)?.highWaterMark;
  await worker.stop();
  await sink.close();

  if (sink.keys.size < count) throw new Error(`${label}: only ${sink.keys.size} of ${count} notifications arrived within 30 min`);
  if (sink.received !== count) throw new Error(`${label}: ${sink.received - count} notifications were sent more than once`);
  if (sink.signed !== (signed ? count : 0)) throw new Error(`${label}: ${sink.signed} of ${count} requests were signed`);
  const sendSeconds = ((sink.lastAt ?? doneAt) - (sink.firstAt ?? readyAt)) / 1000;
  const fromReady = (doneAt - readyAt) / 1000;
  const perSecond = count / sendSeconds;
  return {
    perSecond,
    lines: [
      `${label}:`,
      `  received by the sink        ${sink.received.toLocaleString('en-US')} requests, ${sink.keys.size.toLocaleString('en-US')} distinct Idempotency-Keys, ${sink.signed.toLocaleString('en-US')} signed`,
      `  first → last request        ${sendSeconds.toFixed(2)} s  = ${perSecond.toFixed(0)} deliveries/s`,
      `  worker ready → all received ${fromReady.toFixed(2)} s  = ${(count / fromReady).toFixed(0)} deliveries/s (outbox dispatch included)`,
      `  worker CPU                  ${cpuAtReady === null || cpuAtDone === null ? 'n/a' : `${(((cpuAtDone - cpuAtReady) * 1000) / count).toFixed(2)} ms a delivery (user + system, ${(cpuAtDone - cpuAtReady).toFixed(1)} s)`}`,
      `  worker start-up             ${((readyAt - started) / 1000).toFixed(1)} s`,
      `  worker RSS                  ${mib(memory.first)} when ready, peak ${mib(memory.peak)} (VmHWM ${mib(highWater)})`,
      `  alertmon_deliveries_total{channel="webhook",outcome="delivered"} ${delivered}`,
    ],
  };
}

async function main(): Promise<void> {
  const count = parseCount(process.argv.slice(2));
  const off = await burst(count, false);
  const on = await burst(count, true);
  const concurrency = process.env.DELIVERY_CONCURRENCY ?? '64 (default)';
  process.stdout.write(
    [
      `delivery burst: ${count.toLocaleString('en-US')} notifications → 1 webhook destination on 127.0.0.1 (embedded stores, DELIVERY_CONCURRENCY=${concurrency})`,
      ...off.lines,
      ...on.lines,
      `signing on / off: ${(on.perSecond / off.perSecond).toFixed(2)} (${on.perSecond.toFixed(0)} against ${off.perSecond.toFixed(0)} deliveries/s, first → last request)`,
      '',
    ].join('\n'),
  );
}

await runBench('delivery', main);
