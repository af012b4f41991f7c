// npm run bench:alertmanager -- [--alerts 10000] [--rounds 8] [--interval 15] [--latency 200] [--postgres postgres://…]
// Prometheus-shaped posts to an alert source (ROLE=all, a child process; embedded stores, or
// with --postgres a fresh database on that Postgres server, dropped at the end):
// N active alerts sent in requests of 64 (as Prometheus batches them), endsAt 4 intervals
// ahead, then re-sent every `interval` seconds for `rounds` rounds. Prints the p50/p99 of a
// re-post request against a reference measured in the same run (GET …/api/v2/status, the same
// authentication and source lookup, no alerts), the alerts each round rewrote (their updatedAt
// moved; expected 0 for unchanged re-posts: the lease's durable bound moves about every half
// hour, src/alertsources/leases.ts), with --postgres the rows each round inserted, updated and
// deleted in every table (pg_stat_user_tables), the notifications (expected: N, once each),
// and the time from a firing post of one new alert to its webhook at a local sink (p50/p99 over
// `latency` alerts, one at a time).
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { openStores, storeOptions } from '../../src/stores/index.js';
import { onCleanup, temporaryDir } from './lib/cleanup.js';
import { integerOption, runBench } from './lib/runner.js';
import { issueWorkspaceToken, sleep, startBenchService } from './lib/benchService.js';

const progress = (message: string) => process.stderr.write(`${message}\n`);
const BATCH = 64;

function textOption(argv: readonly string[], name: string): string | null {
  const at = argv.indexOf(`--${name}`);
  return at === -1 ? null : (argv[at + 1] ?? null);
}

/** A fresh database on the server, dropped at the end; a client on it to read pg_stat_user_tables. */
async function freshDatabase(serverUrl: string) {
  const name = `alertmon_bench_am_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const stats = new pg.Client({ connectionString: url.toString() });
  await stats.connect();
  /** Rows inserted, updated and deleted so far, by table (after the statistics are flushed: at most a second after each transaction). */
  const written = async (): Promise<Map<string, number>> => {
    await sleep(1500);
    await stats.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await stats.query<{ relname: string; n: string }>(
      'SELECT relname, (n_tup_ins + n_tup_upd + n_tup_del)::text AS n FROM pg_stat_user_tables',
    );
    return new Map(rows.map((r) => [r.relname, Number(r.n)]));
  };
  const drop = async () => {
    await stats.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.end();
  };
  return { url: url.toString(), written, drop };
}

const delta = (after: Map<string, number>, before: Map<string, number>) => {
  const out: [string, number][] = [];
  for (const [table, n] of after) if (n - (before.get(table) ?? 0) > 0) out.push([table, n - (before.get(table) ?? 0)]);
  return out;
};

function option(argv: readonly string[], name: string, fallback: number, min: number, max: number): number {
  const at = argv.indexOf(`--${name}`);
  return integerOption(name, at === -1 ? undefined : argv[at + 1], fallback, min, max);
}

const describeRows = (rows: [string, number][]) => (rows.length === 0 ? '0' : rows.map(([t, n]) => `${t} ${n}`).join(', '));

const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
const ms = (n: number) => `${n.toFixed(1)} ms`;

async function startSink(): Promise<{ url: string; arrivals: Map<string, number>; close(): Promise<void> }> {
  const arrivals = new Map<string, number>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const json = JSON.parse(body) as { type: string; alert?: { labels?: Record<string, string> } };
      const key = json.alert?.labels?.probe;
      if (json.type === 'alert.triggered' && key !== undefined && !arrivals.has(key)) arrivals.set(key, performance.now());
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, arrivals, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function main(): Promise<boolean> {
  const argv = process.argv.slice(2);
  const alerts = option(argv, 'alerts', 10_000, 1, 100_000);
  const rounds = option(argv, 'rounds', 8, 1, 100);
  const interval = option(argv, 'interval', 15, 1, 600);
  const probes = option(argv, 'latency', 200, 1, 10_000);
  const serverUrl = textOption(argv, 'postgres');
  const database = serverUrl === null ? null : await freshDatabase(serverUrl);
  if (database) onCleanup(database.drop);
  const sink = await startSink();
  const dataDir = temporaryDir('alertmon-bench-am-');
  const service = await startBenchService(dataDir, {
    ROLE: 'all',
    ALLOW_PRIVATE_TARGETS: '1',
    EVAL_INTERVAL_MS: '86400000',
    ...(database ? { DATABASE_URL: database.url } : {}),
  });
  const token = await issueWorkspaceToken(service, 'bench-am');
  const call = async (method: string, path: string, body?: unknown) => {
    const started = performance.now();
    const res = await fetch(`${service.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return { ms: performance.now() - started, json: text === '' ? null : (JSON.parse(text) as unknown) };
  };
  const source = (await call('POST', '/v1.0/alert-sources', { name: 'bench' })).json as { alert_source_id: string };
  const probeSource = (await call('POST', '/v1.0/alert-sources', { name: 'probe' })).json as { alert_source_id: string };
  // Only the probe source's alerts are delivered: the 10,000 raise notifications with no destination to send to.
  await call('POST', '/v1.0/destinations', { channel: 'webhook', url: `${sink.url}/hook`, scope: 'policies', policy_ids: [probeSource.alert_source_id] });
  const prefix = `/alertmanager/${source.alert_source_id}/api/v2`;
  const startsAt = new Date().toISOString();
  const batchOf = (from: number, now: number) =>
    Array.from({ length: Math.min(BATCH, alerts - from) }, (_, k) => {
      const i = from + k;
      return {
        labels: { alertname: `Bench${i % 50}`, instance: `host-${i}:9100`, job: 'node', severity: i % 10 === 0 ? 'critical' : 'warning' },
        annotations: { summary: `Bench alert ${i}`, description: `host-${i} is over its threshold` },
        startsAt,
        endsAt: new Date(now + 4 * interval * 1000).toISOString(),
        generatorURL: `http://prometheus:9090/graph?g0.expr=bench_${i % 50}`,
      };
    });
  /** One round: every alert posted in batches of 64, four requests at a time; the duration of each request. */
  const round = async (): Promise<number[]> => {
    const now = Date.now();
    const starts = Array.from({ length: Math.ceil(alerts / BATCH) }, (_, b) => b * BATCH);
    const durations: number[] = [];
    for (let i = 0; i < starts.length; i += 4) {
      const answers = await Promise.all(starts.slice(i, i + 4).map((from) => call('POST', `${prefix}/alerts`, batchOf(from, now))));
      durations.push(...answers.map((a) => a.ms));
    }
    return durations;
  };
  const updatedAts = async () =>
    new Map(((await call('GET', `${prefix}/alerts`)).json as { fingerprint: string; updatedAt: string }[]).map((a) => [a.fingerprint, a.updatedAt]));

  progress(`raising ${alerts} alerts…`);
  const raise = await round();
  let before = await updatedAts();
  if (before.size !== alerts) throw new Error(`${before.size} open alerts after the first round, expected ${alerts}`);
  const repost: number[] = [];
  const reference: number[] = [];
  const rewritten: number[] = [];
  const rowsWritten: [string, number][][] = [];
  let stats = database ? await database.written() : null;
  for (let r = 1; r <= rounds; r++) {
    const roundStart = Date.now();
    repost.push(...(await round()));
    for (let i = 0; i < Math.ceil(alerts / BATCH) / 4; i++) reference.push((await call('GET', `${prefix}/status`)).ms);
    const after = await updatedAts();
    rewritten.push([...after].filter(([fp, at]) => before.get(fp) !== at).length);
    before = after;
    if (database && stats) {
      const now = await database.written();
      rowsWritten.push(delta(now, stats));
      stats = now;
    }
    const rowsNote = database ? `; rows written: ${describeRows(rowsWritten.at(-1)!)}` : '';
    progress(`round ${r}/${rounds}: ${rewritten.at(-1)} alerts rewritten${rowsNote}`);
    if (r < rounds) await sleep(Math.max(0, interval * 1000 - (Date.now() - roundStart)));
  }

  progress(`probing post → webhook over ${probes} new alerts…`);
  const probePrefix = `/alertmanager/${probeSource.alert_source_id}/api/v2`;
  const latencies: number[] = [];
  for (let i = 0; i < probes; i++) {
    const key = String(i);
    const posted = performance.now();
    await call('POST', `${probePrefix}/alerts`, [{ labels: { alertname: 'Probe', probe: key } }]);
    const deadline = Date.now() + 30_000;
    while (!sink.arrivals.has(key) && Date.now() < deadline) await sleep(1);
    const arrived = sink.arrivals.get(key);
    if (arrived === undefined) throw new Error(`probe ${key}: no webhook within 30 s`);
    latencies.push(arrived - posted);
  }
  await service.stop();
  await sink.close();
  const stores = await openStores(storeOptions(loadConfig({ DATA_DIR: dataDir, ...(database ? { DATABASE_URL: database.url } : {}) })));
  const [counted] = await stores.postgres.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM alert_notifications WHERE alert_source_id = $1 AND type = 'alert.triggered'`,
    [source.alert_source_id],
  );
  await stores.close();
  const notifications = counted?.n ?? 0;

  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const [p, ref, raised, lat] = [sorted(repost), sorted(reference), sorted(raise), sorted(latencies)];
  const p99 = quantile(p, 0.99);
  const latency99 = quantile(lat, 0.99);
  process.stdout.write(
    [
      `alertmanager re-posts: ${alerts.toLocaleString('en-US')} active alerts in posts of ${BATCH}, re-sent every ${interval} s for ${rounds} rounds (${database ? 'Postgres server' : 'embedded stores'}, ROLE=all)`,
      `  first round (raising)        p50 ${ms(quantile(raised, 0.5))}  p99 ${ms(quantile(raised, 0.99))} per post`,
      `  re-post                      p50 ${ms(quantile(p, 0.5))}  p99 ${ms(p99)} per post (${p.length} posts; target p99 ≤ 200 ms)`,
      `  reference GET …/status       p50 ${ms(quantile(ref, 0.5))}  p99 ${ms(quantile(ref, 0.99))}`,
      `  alerts rewritten per round   ${rewritten.join(', ')} (of ${alerts.toLocaleString('en-US')})`,
      ...(database ? [`  Postgres rows written/round  ${rowsWritten.map(describeRows).join('; ')} (inserted + updated + deleted, pg_stat_user_tables)`] : []),
      `  notifications                ${notifications.toLocaleString('en-US')} alert.triggered for ${alerts.toLocaleString('en-US')} alerts (expected one each)`,
      `  firing post → webhook        p50 ${ms(quantile(lat, 0.5))}  p99 ${ms(latency99)} (${lat.length} new alerts, one at a time; target p99 ≤ 100 ms)`,
      '',
    ].join('\n'),
  );
  return p99 <= 200 && latency99 <= 100 && notifications === alerts;
}

await runBench('alertmanager', main);
