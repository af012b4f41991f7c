// npm run bench:grouping -- [--alerts 1000] [--destinations 10] [--window 30]
// A storm through grouped destinations: N alerts of N policies are raised together (their
// alert.triggered notifications written to the outbox of fresh embedded stores in one
// transaction), with D webhook destinations whose group_window_seconds is W; then a delivery
// worker (ROLE=worker, a child process) starts and sends them to a local sink. Prints the
// messages each destination received (expected: 2, the first alert at once and one
// alert.group with the rest at the end of the window), the alerts they carried, the time from
// the worker being ready to the first and to the last message, and the delivered attempts
// (expected: N × D, one per alert and destination).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config.js';
import { openStores, storeOptions } from '../../src/stores/index.js';
import { temporaryDir } from './lib/cleanup.js';
import { runBench, UsageError } from './lib/runner.js';
import { sleep, startBenchService } from './lib/benchService.js';

const progress = (message: string) => process.stderr.write(`${message}\n`);

function option(argv: readonly string[], name: string, fallback: number, max: number): number {
  const at = argv.indexOf(`--${name}`);
  const value = at === -1 ? fallback : Number(argv[at + 1]);
  if (!Number.isSafeInteger(value) || value < 1 || value > max) throw new UsageError(`--${name} takes an integer from 1 to ${max}`);
  return value;
}

interface Received {
  readonly path: string;
  /** webhook-id: the notification (or group) id, the same on a retry. */
  readonly id: string;
  readonly type: string;
  readonly alerts: number;
  readonly at: number;
}

async function startSink(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const json = JSON.parse(body) as { type: string; count?: number };
      received.push({
        path: req.url ?? '',
        id: String(req.headers['webhook-id']),
        type: json.type,
        alerts: json.type === 'alert.group' ? (json.count ?? 0) : 1,
        at: performance.now(),
      });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function seed(dataDir: string, sinkUrl: string, alerts: number, destinations: number, windowSeconds: number): Promise<void> {
  const stores = await openStores(storeOptions(loadConfig({ DATA_DIR: dataDir })));
  try {
    await stores.postgres.transaction(async (db) => {
      await db.query(`INSERT INTO workspaces (user_id) VALUES ('bench')`);
      await db.query(
        `INSERT INTO event_definitions (event_id, user_id, agent, event, share_token) VALUES (gen_random_uuid(), 'bench', 'web-1', 'http.latency_ms', 'bench')`,
      );
      await db.query(
        `INSERT INTO destinations (destination_id, workspace_id, channel, url, scope, group_window_seconds)
         SELECT gen_random_uuid(), 'bench', 'webhook', $1 || '/d' || i, 'all', $2 FROM generate_series(1, $3) AS i`,
        [sinkUrl, windowSeconds, destinations],
      );
      await db.query(
        `INSERT INTO policies (policy_id, workspace_id, event_id, title, period, aggregate, condition, threshold, severity)
         SELECT gen_random_uuid(), 'bench', e.event_id, 'Storm ' || i, 'minute', 'max', 'gt', 500, 'critical'
         FROM event_definitions e, generate_series(1, $1) AS i`,
        [alerts],
      );
      await db.query(
        `INSERT INTO alerts (alert_id, workspace_id, policy_id, event_id, agent, event, title, channel, period, aggregate, condition, threshold,
           severity, value, count, min, max, bucket_start, bucket_end, status)
         SELECT gen_random_uuid(), 'bench', p.policy_id, p.event_id, 'web-1', 'http.latency_ms', p.title, 'default', 'minute', 'max', 'gt', 500,
           'critical', 900, 10, 1, 900, now() - interval '1 minute', now(), 'triggered'
         FROM policies p`,
      );
      await db.query(
        `INSERT INTO alert_notifications (notification_id, workspace_id, alert_id, policy_id, type, alert)
         SELECT gen_random_uuid(), a.workspace_id, a.alert_id, a.policy_id, 'alert.triggered',
           jsonb_build_object('alert_id', a.alert_id, 'policy_id', a.policy_id, 'event_id', a.event_id, 'agent', a.agent, 'event', a.event,
             'title', a.title, 'severity', a.severity, 'value', a.value, 'threshold', a.threshold, 'status', 'triggered', 'triggered_at', a.triggered_at)
         FROM alerts a`,
      );
    });
  } finally {
    await stores.close();
  }
}

async function deliveredAttempts(dataDir: string): Promise<number> {
  const stores = await openStores(storeOptions(loadConfig({ DATA_DIR: dataDir })));
  try {
    const rows = await stores.postgres.query<{ n: number }>(`SELECT count(*)::int AS n FROM delivery_attempts WHERE status = 'delivered'`);
    return rows[0]?.n ?? 0;
  } finally {
    await stores.close();
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const alerts = option(argv, 'alerts', 1000, 100_000);
  const destinations = option(argv, 'destinations', 10, 1000);
  const windowSeconds = option(argv, 'window', 30, 3600);
  const sink = await startSink();
  const dataDir = temporaryDir('alertmon-bench-grouping-');
  await seed(dataDir, sink.url, alerts, destinations, windowSeconds);
  progress(`seeded ${alerts} alerts × ${destinations} destinations (window ${windowSeconds} s); starting the worker…`);

  // Times count from the worker's start: it dispatches (and opens the windows) as soon as its tasks start.
  const startedAt = performance.now();
  const worker = await startBenchService(dataDir, { ROLE: 'worker', ALLOW_PRIVATE_TARGETS: '1', LOG_LEVEL: 'error' });
  const readyAt = performance.now();
  /** Alerts carried by distinct messages (a message re-sent after a time-out, same webhook-id, counted once). */
  const carried = () => [...new Map(sink.received.map((r) => [`${r.path} ${r.id}`, r.alerts])).values()].reduce((sum, n) => sum + n, 0);
  const deadline = Date.now() + (windowSeconds + 600) * 1000;
  while (carried() < alerts * destinations && Date.now() < deadline) await sleep(50);
  await sleep(2_000); // anything sent twice would arrive now
  await worker.stop();
  await sink.close();
  const attempts = await deliveredAttempts(dataDir);

  const perDestination = new Map<string, Received[]>();
  for (const r of sink.received) perDestination.set(r.path, [...(perDestination.get(r.path) ?? []), r]);
  const counts = [...perDestination.values()].map((list) => new Set(list.map((r) => r.id)).size);
  const resent = sink.received.length - counts.reduce((sum, n) => sum + n, 0);
  const since = (r: Received) => (r.at - startedAt) / 1000;
  const firsts = sink.received.filter((r) => r.type === 'alert.triggered').map(since);
  const groups = sink.received.filter((r) => r.type === 'alert.group').map(since);
  process.stdout.write(
    [
      `grouping storm: ${alerts.toLocaleString('en-US')} alerts raised together × ${destinations} webhook destinations, group_window_seconds ${windowSeconds} (embedded stores)`,
      `  distinct messages           ${counts.reduce((sum, n) => sum + n, 0)} (${Math.min(...counts)}–${Math.max(...counts)} per destination; without grouping ${(alerts * destinations).toLocaleString('en-US')}); re-sent after a time-out (same webhook-id): ${resent}`,
      `  alerts carried              ${carried().toLocaleString('en-US')} of ${(alerts * destinations).toLocaleString('en-US')}`,
      `  delivered attempts          ${attempts.toLocaleString('en-US')} (one per alert and destination)`,
      `  worker start → ready        ${((readyAt - startedAt) / 1000).toFixed(1)} s`,
      `  worker start → first alert  ${Math.min(...firsts).toFixed(2)}–${Math.max(...firsts).toFixed(2)} s (one per destination, sent at once)`,
      `  worker start → alert.group  ${Math.min(...groups).toFixed(2)}–${Math.max(...groups).toFixed(2)} s (the window is ${windowSeconds} s from the first dispatch)`,
      '',
    ].join('\n'),
  );
  if (carried() !== alerts * destinations) throw new Error(`${carried()} alerts arrived, expected ${alerts * destinations}`);
}

await runBench('grouping', main);
