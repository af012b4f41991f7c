// npm run bench:shifts -- [--calls 50] [--overrides 1000]
// How long GET /v1.0/schedules/:id/shifts takes for 90 days of the largest schedule the API
// takes: 5 layers × 50 members (weekly, daily, 8-hour, weekdays 09:00–17:00 and nights
// 22:00–06:00 in Europe/Berlin, across a DST change) and 1,000 overrides, against a
// reference in the same run: a one-layer weekly schedule with no overrides over the same
// range. A service (ROLE=all, embedded stores) in this process; one request at a time
// through HTTP; target p99 ≤ 100 ms.
import os from 'node:os';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { computationSpan, computeShifts } from '../../src/oncall/shifts.js';
import { findScheduleById, overrideSpansOverlapping } from '../../src/oncall/scheduleStore.js';
import { percentile } from './lib/report.js';
import { startService } from '../../src/service.js';
import { temporaryDir } from './lib/cleanup.js';
import { apiCaller } from './lib/apiCall.js';
import { integerOption, runBench, UsageError } from './lib/runner.js';

const TARGET_MS = 100;
const DAY = 86_400_000;
const HOUR = 3_600_000;
const progress = (message: string) => process.stderr.write(`${message}\n`);

function parse(argv: readonly string[]) {
  const value = (name: string) => {
    const at = argv.indexOf(`--${name}`);
    return at === -1 ? undefined : argv[at + 1];
  };
  for (const arg of argv)
    if (arg.startsWith('--') && !['--calls', '--overrides', '--warmup'].includes(arg))
      throw new UsageError(`unknown option ${arg}; usage: npm run bench:shifts -- [--calls 50] [--warmup 5] [--overrides 1000]`);
  return {
    calls: integerOption('calls', value('calls'), 50, 5, 10_000),
    warmup: integerOption('warmup', value('warmup'), 5, 0, 1000),
    overrides: integerOption('overrides', value('overrides'), 1000, 0, 5000),
  };
}

async function main(): Promise<boolean> {
  const opts = parse(process.argv.slice(2));
  const adminToken = 'bench-shifts-admin-token';
  const config = loadConfig({
    ...process.env,
    DATA_DIR: temporaryDir('alertmon-bench-shifts-'),
    PORT: '0',
    LOG_LEVEL: 'warn',
    ADMIN_TOKEN: adminToken,
    EVAL_INTERVAL_MS: '86400000',
  });
  const service = await startService(config, createLogger('warn'));
  try {
    const call = apiCaller<Record<string, string>>(service.url);
    const token = (await call('POST', '/v1.0/admin/tokens', adminToken, { user_id: 'bench' })).token!;
    const destination = (await call('POST', '/v1.0/destinations', token, { channel: 'webhook', url: 'https://example.com/bench' })).destination_id;
    progress('creating 250 people, two schedules and the overrides…');
    const people: string[] = [];
    for (let i = 0; i < 250; i++) people.push((await call('POST', '/v1.0/people', token, { name: `Person ${i}`, destination_ids: [destination] })).person_id!);
    // From a Monday 09:00 Berlin, 90 days that hold the spring change (2027-03-28).
    const from = Date.parse('2027-02-01T08:00:00Z');
    const to = from + 90 * DAY;
    const start = new Date(from - 30 * DAY).toISOString();
    const members = (k: number) => people.slice(k * 50, k * 50 + 50);
    const large = await call('POST', '/v1.0/schedules', token, {
      name: 'large',
      timezone: 'Europe/Berlin',
      layers: [
        { name: 'weekly', start, rotation: { type: 'weekly', handoff: '09:00' }, members: members(0) },
        { name: 'daily', start, rotation: { type: 'daily', handoff: '09:00' }, members: members(1) },
        { name: 'eight hours', start, rotation: { type: 'hours', length: 8 }, members: members(2) },
        {
          name: 'office',
          start,
          rotation: { type: 'daily', handoff: '08:00' },
          members: members(3),
          restrict_to: { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' },
        },
        {
          name: 'nights',
          start,
          rotation: { type: 'weekly', handoff: '18:00' },
          members: members(4),
          restrict_to: { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '22:00', end: '06:00' },
        },
      ],
    });
    const small = await call('POST', '/v1.0/schedules', token, {
      name: 'reference',
      timezone: 'Europe/Berlin',
      layers: [{ name: 'weekly', start, rotation: { type: 'weekly', handoff: '09:00' }, members: members(0).slice(0, 4) }],
    });
    const spacing = (to - from) / Math.max(1, opts.overrides);
    for (let i = 0; i < opts.overrides; i++) {
      const at = from + Math.floor(i * spacing);
      await call('POST', `/v1.0/schedules/${large.schedule_id}/overrides`, token, {
        person_id: people[(i * 7) % people.length],
        starts_at: new Date(at).toISOString(),
        ends_at: new Date(at + Math.min(HOUR, Math.floor(spacing / 2))).toISOString(),
      });
    }
    const query = `from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;
    const requests = [
      { name: 'one layer, no overrides (reference)', path: `/v1.0/schedules/${small.schedule_id}/shifts?${query}`, reference: true },
      { name: `5 layers × 50 members, ${opts.overrides} overrides`, path: `/v1.0/schedules/${large.schedule_id}/shifts?${query}`, reference: false },
    ].map((r) => ({ ...r, ms: [] as number[], shifts: 0 }));
    const loadBefore = os.loadavg()[0]!;
    progress(`timing ${requests.length} requests in ${opts.warmup} + ${opts.calls} rounds…`);
    for (let round = 0; round < opts.warmup + opts.calls; round++) {
      for (const r of requests) {
        const started = performance.now();
        const res = await fetch(service.url + r.path, { headers: { authorization: `Bearer ${token}` } });
        const text = await res.text();
        const ms = performance.now() - started;
        if (res.status !== 200) throw new Error(`${r.name}: ${res.status} ${text}`);
        r.shifts = (JSON.parse(text) as unknown[]).length;
        if (round >= opts.warmup) r.ms.push(ms);
      }
    }
    const loadAfter = os.loadavg()[0]!;
    // Where the large schedule's time goes, in this process: reading its overrides, and the computation.
    const schedule = (await findScheduleById(service.stores.postgres, large.schedule_id!))!;
    const [read, compute] = [[] as number[], [] as number[]];
    for (let i = 0; i < opts.calls; i++) {
      let t = performance.now();
      const rows = await overrideSpansOverlapping(service.stores.postgres, [schedule.schedule_id], computationSpan(schedule, { from, to }));
      read.push(performance.now() - t);
      t = performance.now();
      computeShifts(schedule, rows, { from, to });
      compute.push(performance.now() - t);
    }
    const lines = [
      '',
      '=== alertmon shifts benchmark ===',
      'range            90 days in Europe/Berlin (across the spring DST change), GET /v1.0/schedules/:id/shifts',
      `calls            ${opts.calls} timed rounds after ${opts.warmup} untimed, each request once per round, one at a time, through HTTP`,
      `machine          ${os.cpus().length} cores, load average ${loadBefore.toFixed(1)} before the timed calls, ${loadAfter.toFixed(1)} after`,
      '',
      `${'request'.padEnd(46)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'max ms'.padStart(8)}${'shifts'.padStart(9)}   p99 ≤ ${TARGET_MS} ms`,
    ];
    let met = true;
    for (const r of requests) {
      const p99 = percentile(r.ms, 99);
      if (!r.reference) met &&= p99 <= TARGET_MS;
      const verdict = r.reference ? '(for comparison)' : p99 <= TARGET_MS ? 'met' : 'NOT MET';
      lines.push(
        `${r.name.padEnd(46)}${percentile(r.ms, 50).toFixed(1).padStart(8)}${p99.toFixed(1).padStart(8)}${Math.max(...r.ms)
          .toFixed(1)
          .padStart(8)}${String(r.shifts).padStart(9)}   ${verdict}`,
      );
    }
    lines.push(
      '',
      `in process       reading the ${opts.overrides} overrides p50 ${percentile(read, 50).toFixed(1)} ms, computing the shifts p50 ${percentile(compute, 50).toFixed(1)} ms`,
    );
    const [ref, big] = requests;
    lines.push('', `ratio            p50 of the large schedule ÷ the reference's: ${(percentile(big!.ms, 50) / percentile(ref!.ms, 50)).toFixed(1)}`);
    process.stdout.write(`${lines.join('\n')}\n`);
    return met;
  } finally {
    await service.close();
  }
}

await runBench('shifts', main);
