// npm run bench:ascode -- [--policies 10000]
// Plan and apply of an alerting-as-code document of 10,000 policies (docs/as-code.md), through
// HTTP against a service (ROLE=all, embedded stores) in this process, beside a reference in
// the same run: the same document of 100 policies. Timed: the plan of the new document (all
// creates), its apply, a plan with no changes, and the plan and apply of a change to every
// threshold (all updates). Target: each ≤ 2 s at 10,000 policies. Beside each time, the CPU
// time this process spent in it (the service, PGlite and the client are all in it): on a
// shared machine, the figure that depends least on what else runs.
import os from 'node:os';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startService } from '../../src/service.js';
import { apiCaller } from './lib/apiCall.js';
import { temporaryDir } from './lib/cleanup.js';
import { integerOption, runBench, UsageError } from './lib/runner.js';

const TARGET_MS = 2000;
const progress = (message: string) => process.stderr.write(`${message}\n`);

function parse(argv: readonly string[]) {
  const at = argv.indexOf('--policies');
  for (const arg of argv)
    if (arg.startsWith('--') && arg !== '--policies') throw new UsageError(`unknown option ${arg}; usage: npm run bench:ascode -- [--policies 10000]`);
  return { policies: integerOption('policies', at === -1 ? undefined : argv[at + 1], 10_000, 1, 10_000) };
}

const documentOf = (n: number, threshold: number) => ({
  version: 1,
  policies: Array.from({ length: n }, (_, i) => ({
    key: `policy-${i}`,
    title: `Policy ${i}`,
    event_definition: { agent: 'web', event: 'latency' },
    period: 'minute',
    aggregate: 'average',
    condition: 'gt',
    threshold,
    severity: 'warning',
    pending_buckets: 2,
  })),
});

async function main(): Promise<boolean> {
  const { policies } = parse(process.argv.slice(2));
  const adminToken = 'bench-ascode-admin-token';
  const config = loadConfig({
    ...process.env,
    DATA_DIR: temporaryDir('alertmon-bench-ascode-'),
    PORT: '0',
    LOG_LEVEL: 'warn',
    ADMIN_TOKEN: adminToken,
    EVAL_INTERVAL_MS: '86400000',
    WORKSPACE_MAX_POLICIES: String(Math.max(policies, 100)),
  });
  const service = await startService(config, createLogger('warn'));
  try {
    const call = apiCaller<Record<string, unknown>>(service.url);
    const timed = async (token: string, path: string, body: unknown) => {
      const started = performance.now();
      const cpu = process.cpuUsage();
      const res = (await call('POST', path, token, body)) as { changes: unknown[] };
      const used = process.cpuUsage(cpu);
      return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, changes: res.changes.length };
    };
    const run = async (n: number) => {
      const token = (await call('POST', '/v1.0/admin/tokens', adminToken, { user_id: `bench-${n}` })).token as string;
      await call('POST', '/v1.0/events', token, { agent: 'web', event: 'latency' });
      const first = documentOf(n, 100);
      const second = documentOf(n, 200);
      progress(`${n} policies: plan, apply, plan, plan and apply of an update…`);
      return [
        ['plan (all creates)', await timed(token, '/v1.0/config/plan', first)],
        ['apply (all creates)', await timed(token, '/v1.0/config/apply', first)],
        ['plan (no changes)', await timed(token, '/v1.0/config/plan', first)],
        ['plan (every threshold)', await timed(token, '/v1.0/config/plan', second)],
        ['apply (every threshold)', await timed(token, '/v1.0/config/apply', second)],
      ] as const;
    };
    const loadBefore = os.loadavg()[0]!;
    const reference = await run(100);
    const large = await run(policies);
    const loadAfter = os.loadavg()[0]!;
    const bytes = JSON.stringify(documentOf(policies, 100)).length;
    const lines = [
      '',
      '=== alertmon alerting-as-code benchmark ===',
      `document         ${policies} policies (${(bytes / 1024 / 1024).toFixed(1)} MB of JSON), one request at a time through HTTP`,
      `machine          ${os.cpus().length} cores, load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after`,
      '',
      `${'step'.padEnd(26)}${'100 (ref) ms'.padStart(14)}${`${policies} ms`.padStart(12)}${'cpu ms'.padStart(9)}${'changes'.padStart(9)}   ≤ ${TARGET_MS} ms`,
    ];
    let met = true;
    large.forEach(([name, r], i) => {
      const ok = r.ms <= TARGET_MS;
      met &&= ok;
      lines.push(
        `${name.padEnd(26)}${reference[i]![1].ms.toFixed(0).padStart(14)}${r.ms.toFixed(0).padStart(12)}${r.cpuMs.toFixed(0).padStart(9)}${String(r.changes).padStart(9)}   ${ok ? 'met' : 'NOT MET'}`,
      );
    });
    process.stdout.write(`${lines.join('\n')}\n`);
    return met;
  } finally {
    await service.close();
  }
}

await runBench('ascode', main);
