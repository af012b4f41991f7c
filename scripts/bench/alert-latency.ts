// npm run bench:alert-latency -- [--samples 20] [--eval-interval-ms default,1000]
// End to end, as a user sees it: the time from POST /v1.0/logs with a value that breaches a
// policy to a local webhook receiving the alert.triggered notification. The service runs in
// a child process (ROLE=all, fresh embedded stores) once per EVAL_INTERVAL_MS value. Each
// sample uses a policy of its own (max > 100 per minute, which may fire while its minute is
// still open) on an event of its own, created just before its breach, so every breach opens
// a new alert and no policy has been evaluated by a cycle before. Evaluation is driven by the
// inserted record; the cycle is only the safety net (docs/alert-path.md).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { temporaryDir } from './lib/cleanup.js';
import { percentile } from './lib/report.js';
import { runBench } from './lib/runner.js';
import { issueWorkspaceToken, sleep, startBenchService, type BenchService } from './lib/benchService.js';

const progress = (message: string) => process.stderr.write(`${message}\n`);

function option(argv: readonly string[], name: string, fallback: string): string {
  const at = argv.indexOf(name);
  return at === -1 ? fallback : (argv[at + 1] ?? fallback);
}

/** A webhook receiver that notes when each policy's first notification arrived. */
async function startSink(): Promise<{ url: string; arrivals: Map<string, number>; close(): Promise<void> }> {
  const arrivals = new Map<string, number>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const at = performance.now();
      try {
        const { type, alert } = JSON.parse(body) as { type: string; alert: { policy_id: string } };
        if (type === 'alert.triggered' && !arrivals.has(alert.policy_id)) arrivals.set(alert.policy_id, at);
      } catch {
        // not a notification
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, arrivals, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function call<T = unknown>(service: BenchService, token: string, method: string, path: string, body: unknown, expected: number): Promise<T> {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return (text === '' ? null : JSON.parse(text)) as T;
}

async function measure(evalIntervalMs: string, samples: number): Promise<number[]> {
  const sink = await startSink();
  const service = await startBenchService(temporaryDir('alertmon-bench-latency-'), {
    ROLE: 'all',
    ALLOW_PRIVATE_TARGETS: '1',
    LOG_LEVEL: 'warn',
    ...(evalIntervalMs === 'default' ? {} : { EVAL_INTERVAL_MS: evalIntervalMs }),
  });
  try {
    const token = await issueWorkspaceToken(service, 'bench');
    await call(service, token, 'POST', '/v1.0/destinations', { channel: 'webhook', url: sink.url }, 201);
    const latencies: number[] = [];
    for (let i = 0; i < samples; i++) {
      const event = `latency.e2e_${i}`;
      const { event_id: eventId } = await call<{ event_id: string }>(service, token, 'POST', '/v1.0/events', { event, agent: 'bench' }, 201);
      const policy = { event_id: eventId, title: `e2e ${i}`, period: 'minute', aggregate: 'max', condition: 'gt', threshold: 100, severity: 'critical' };
      const { policy_id: policyId } = await call<{ policy_id: string }>(service, token, 'POST', '/v1.0/policies', policy, 201);
      // Start at a random point of the evaluation cycle, as a real breach would (the previous
      // sample ended right after a cycle).
      await sleep(Math.random() * (evalIntervalMs === 'default' ? 15_000 : Number(evalIntervalMs)));
      const sentAt = performance.now();
      await call(service, token, 'POST', '/v1.0/logs', [{ agent: 'bench', event, value: 500 }], 200);
      const deadline = Date.now() + 120_000;
      while (!sink.arrivals.has(policyId) && Date.now() < deadline) await sleep(5);
      const arrivedAt = sink.arrivals.get(policyId);
      if (arrivedAt === undefined) throw new Error(`no notification for sample ${i} within 120 s`);
      latencies.push(arrivedAt - sentAt);
      progress(`EVAL_INTERVAL_MS=${evalIntervalMs}: sample ${i + 1}/${samples}: ${(arrivedAt - sentAt).toFixed(0)} ms`);
    }
    return latencies;
  } finally {
    await service.stop();
    await sink.close();
  }
}

function summary(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  return `min ${s(sorted[0]!)}, median ${s(percentile(sorted, 50))}, p99 ${s(percentile(sorted, 99))}, max ${s(sorted.at(-1)!)} (${sorted.length} samples)`;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const samples = Number(option(argv, '--samples', '20'));
  const intervals = option(argv, '--eval-interval-ms', 'default').split(',');
  const lines = ['log → webhook, one breach per sample (embedded stores, ROLE=all):'];
  for (const interval of intervals) {
    const latencies = await measure(interval, samples);
    lines.push(`  EVAL_INTERVAL_MS=${interval === 'default' ? '15000 (default)' : interval}: ${summary(latencies)}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

await runBench('alert-latency', main);
