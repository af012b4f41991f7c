// npm run bench:analyst -- [--reads 40] [--heavy 2] [--service-root DIR]
// What analyst SQL costs the service's own reads: the service in a child process (fresh
// embedded stores, default settings), one event with a day of minute data, then the rollup
// read a console makes (GET /v1.0/events/:id/logs?period=minute), one at a time, first alone
// (the reference), then while `--heavy` analyst queries (a cross join of logs that runs to the
// analyst time limit) run through POST /v1.0/admin/sql. Prints each phase's p50/p99/max and the
// added p99. Target (issue 29): analyst work delays the service's reads by ≤ 100 ms.
// --service-root runs the service from another checkout (e.g. a worktree of the commit before)
// with the same clients, to measure before and after in one sitting.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { temporaryDir } from './lib/cleanup.js';
import { percentile } from './lib/report.js';
import { integerOption, runBench } from './lib/runner.js';
import { issueWorkspaceToken, sleep, startBenchService, type BenchService } from './lib/benchService.js';

const TARGET_ADDED_MS = 100;
const HEAVY = 'SELECT count() AS analyst_bench_n FROM logs AS a, logs AS b, logs AS c, logs AS d WHERE a.value + b.value + c.value + d.value = -1';
const progress = (message: string) => process.stderr.write(`${message}\n`);

async function ingestDay(service: BenchService, token: string): Promise<string> {
  const now = Date.now();
  for (let start = 0; start < 1440; start += 240) {
    const records = Array.from({ length: Math.min(240, 1440 - start) }, (_, i) => ({
      log_id: randomUUID(),
      agent: 'bench-agent',
      event: 'bench.latency_ms',
      value: (start + i) % 97,
      occurred_at: new Date(now - (start + i) * 60_000).toISOString(),
    }));
    const res = await fetch(`${service.url}/v1.0/logs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(records),
    });
    if (res.status !== 200) throw new Error(`POST /v1.0/logs: ${res.status} ${await res.text()}`);
  }
  const res = await fetch(`${service.url}/v1.0/events`, { headers: { authorization: `Bearer ${token}` } });
  const events = (await res.json()) as { event_id: string }[];
  if (events.length !== 1) throw new Error(`expected one event, got ${events.length}`);
  return events[0]!.event_id;
}

const rollupRead = (service: BenchService, token: string, eventId: string) =>
  fetch(`${service.url}/v1.0/events/${eventId}/logs?period=minute&limit=1000`, { headers: { authorization: `Bearer ${token}` } });

async function hasRows(service: BenchService, token: string, eventId: string): Promise<boolean> {
  const res = await rollupRead(service, token, eventId);
  return res.status === 200 && ((await res.json()) as unknown[]).length > 0;
}

/** `reads` rollup reads one after another; their latencies in ms. */
async function timeReads(service: BenchService, token: string, eventId: string, reads: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < reads; i++) {
    const started = performance.now();
    const res = await rollupRead(service, token, eventId);
    const rows = (await res.json()) as unknown[];
    latencies.push(performance.now() - started);
    if (res.status !== 200 || rows.length === 0) throw new Error(`rollup read: ${res.status} ${JSON.stringify(rows).slice(0, 300)}`);
  }
  return latencies;
}

const summary = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1)! };
};
const line = (ms: number[]) => {
  const s = summary(ms);
  return `p50 ${s.p50.toFixed(1)}  p99 ${s.p99.toFixed(1)}  max ${s.max.toFixed(1)} ms (${ms.length} reads)`;
};

await runBench('analyst', async () => {
  const { values } = parseArgs({ options: { reads: { type: 'string' }, heavy: { type: 'string' }, 'service-root': { type: 'string' } } });
  const reads = integerOption('reads', values.reads, 40, 1, 10_000);
  const heavy = integerOption('heavy', values.heavy, 2, 1, 16);
  const service = await startBenchService(temporaryDir('alertmon-bench-analyst-'), {}, values['service-root']);
  const token = await issueWorkspaceToken(service, 'bench-analyst');
  const eventId = await ingestDay(service, token);
  // The records show in the rollups within a second of their 200.
  const visibleBy = Date.now() + 30_000;
  while (!(await hasRows(service, token, eventId))) {
    if (Date.now() > visibleBy) throw new Error('the records did not show in the minute rollup within 30 s');
    await sleep(100);
  }
  progress('reference reads…');
  await timeReads(service, token, eventId, 5); // warm-up
  const alone = await timeReads(service, token, eventId, reads);

  progress(`${heavy} heavy analyst queries, then reads while they run…`);
  let running = heavy;
  const sentAt = performance.now();
  const answers: Promise<string>[] = Array.from({ length: heavy }, () =>
    fetch(`${service.url}/v1.0/admin/sql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: HEAVY }),
    })
      .then(async (res) => {
        await res.text();
        return `${res.status} after ${((performance.now() - sentAt) / 1000).toFixed(1)} s`;
      })
      .finally(() => running--),
  );
  await sleep(1_000);
  const during: number[] = [];
  while (running === heavy && during.length < reads) during.push(...(await timeReads(service, token, eventId, 1)));
  const stillRunning = running === heavy;
  const statuses = await Promise.all(answers);

  const added = summary(during).p99 - summary(alone).p99;
  const met = stillRunning && added <= TARGET_ADDED_MS;
  console.log(`analyst SQL beside the service's rollup reads (${values['service-root'] ?? 'this checkout'}, embedded stores, default settings)`);
  console.log(`  reads alone                       ${line(alone)}`);
  console.log(`  reads during ${heavy} analyst queries   ${line(during)}`);
  console.log(
    `  the analyst queries answered      ${statuses.join(', ')} (${stillRunning ? 'all still running after the reads' : 'one ended before the reads did: the figure covers less'})`,
  );
  console.log(`  added p99                         ${added.toFixed(1)} ms   target ≤ ${TARGET_ADDED_MS} ms: ${met ? 'met' : 'NOT MET'}`);
  return met;
});
