// npm run bench:fleet-reads -- [--agents 10000] [--calls 50] [--warmup 5] [--history-days 0]
// The fleet's reads, called in-process on fresh embedded stores (or the servers of
// CLICKHOUSE_URL / DATABASE_URL) as the routes call them, one call at a time, each with a
// reference read in the same run:
//  1. GET /v1.0/series of an event name grouped by a declared key of 100 values, 60 minute
//     buckets, 10 agents (1,000 series, a record each a minute): 100 groups × 60 buckets,
//     against the same read filtered to one group. Target p99 ≤ 50 ms.
//  2. GET /v1.0/analytics?event=… grouped by agent over --agents agents (a definition each, a
//     record each 15 minutes over two days): 1d/previous_window (today so far against
//     yesterday's same span; hours and minutes) and 1h/previous_1d (this hour so far against
//     the same hour yesterday; minutes), the first 10 by value_pct_change, against the same
//     reads of one agent. Target p99 ≤ 100 ms.
//     --history-days N: N days of rollup rows of those agents before the two days
//     (lib/rollupHistory.ts), as a fleet that has run for longer has them.
// `now` is fixed at 12:30 UTC two days ago, so the windows are the same whatever the hour.
// The HTTP layer (parsing the query, the JSON answer) is not in the figures.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { rankedComparison, type RankedComparisonRequest } from '../../src/analytics/rankedComparison.js';
import { loadConfig } from '../../src/config.js';
import { seriesOf, type SeriesQuery } from '../../src/dimensions/seriesReads.js';
import { TimezoneCatalog } from '../../src/events/timezones.js';
import { newId } from '../../src/ids.js';
import { openStores, storeOptions, type Stores } from '../../src/stores/index.js';
import { onCleanup, temporaryDir } from './lib/cleanup.js';
import { percentile } from './lib/report.js';
import { integerOption, runBench } from './lib/runner.js';
import { writeRollupHistory } from './lib/rollupHistory.js';

const { values } = parseArgs({
  options: { agents: { type: 'string' }, calls: { type: 'string' }, warmup: { type: 'string' }, 'history-days': { type: 'string' } },
});
const log = (message: string) => process.stderr.write(`${message}\n`);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const TARGET_SERIES_P99_MS = 50;
const TARGET_RANKED_P99_MS = 100;
const WS = 'fleet-reads';

/** Event definitions of these agents for `event`, in Postgres. */
async function writeDefinitions(stores: Stores, event: string, agents: readonly string[]): Promise<{ id: string; agent: string }[]> {
  const defs = agents.map((agent) => ({ id: newId(), agent }));
  for (let i = 0; i < defs.length; i += 20_000) {
    const chunk = defs.slice(i, i + 20_000);
    await stores.postgres.query(
      `INSERT INTO event_definitions (event_id, user_id, agent, event, timezone, share_token)
       SELECT id, $1, agent, $2, 'UTC', token FROM unnest($3::uuid[], $4::text[], $5::text[]) AS u(id, agent, token)`,
      [WS, event, chunk.map((d) => d.id), chunk.map((d) => d.agent), chunk.map(() => randomBytes(24).toString('base64url'))],
    );
  }
  return defs;
}

/**
 * `perDefinition` records of each definition, every `step` ms back from `end` (newest first),
 * values from a hash; each record's labels: `route` r000–r099 from its index when `routes`.
 */
async function writeLogs(
  stores: Stores,
  event: string,
  defs: readonly { id: string; agent: string }[],
  end: number,
  step: number,
  perDefinition: number,
  routes: boolean,
) {
  for (let i = 0; i < defs.length; i += 5_000) {
    const chunk = defs.slice(i, i + 5_000);
    await stores.clickhouse.client.command({
      query: `
        INSERT INTO logs (workspace_id, event_id, agent, event, log_id, value, occurred_at, received_at, day_start, meta, labels, dims_version)
        SELECT {ws:String}, {ids:Array(UUID)}[d + 1], {agents:Array(String)}[d + 1], {event:String}, generateUUIDv4(),
               (cityHash64(number) % 10000) / 100, occurred, occurred, toDateTime(toStartOfDay(occurred, 'UTC'), 'UTC'), '',
               if({routes:UInt8}, map('route', concat('r', leftPad(toString(number % 100), 3, '0'))), map()), if({routes:UInt8}, 1, 0)
        FROM (
          SELECT number, intDiv(number, {per:UInt32}) % length({ids:Array(UUID)}) AS d,
                 fromUnixTimestamp64Milli({end:Int64} - toInt64(number % {per:UInt32}) * {step:UInt32} - 1000, 'UTC') AS occurred
          FROM numbers({rows:UInt64})
        )`,
      query_params: {
        ws: WS,
        ids: chunk.map((d) => d.id),
        agents: chunk.map((d) => d.agent),
        event,
        end,
        step,
        per: perDefinition,
        rows: chunk.length * perDefinition,
        routes: routes ? 1 : 0,
      },
    });
  }
}

interface Timed {
  readonly name: string;
  readonly reference: boolean;
  readonly call: () => Promise<unknown>;
}

await runBench('fleet-reads', async () => {
  const agents = integerOption('agents', values.agents, 10_000, 1, 100_000);
  const calls = integerOption('calls', values.calls, 50, 1, 10_000);
  const warmup = integerOption('warmup', values.warmup, 5, 0, 1_000);
  const historyDays = integerOption('history-days', values['history-days'], 0, 0, 90);
  const config = loadConfig({ ...process.env, DATA_DIR: temporaryDir('alertmon-bench-fleet-reads-') });
  const stores = await openStores(storeOptions(config));
  onCleanup(() => stores.close());
  const timezones = await TimezoneCatalog.load(stores.clickhouse);
  process.stdout.write(
    `load average at the start: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  const midnight = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
  const now = midnight + 12 * HOUR + 30 * MINUTE;
  await stores.postgres.query('INSERT INTO workspaces (user_id) VALUES ($1) ON CONFLICT DO NOTHING', [WS]);

  const started = performance.now();
  // 1. 10 agents × 100 routes: 1,000 series, one record a minute each over the hour before now (the route from the record's index).
  const seriesDefs = await writeDefinitions(
    stores,
    'reads.series',
    Array.from({ length: 10 }, (_, a) => `svc-${a}`),
  );
  await stores.postgres.query("INSERT INTO dimensions (workspace_id, event, keys, version) VALUES ($1, 'reads.series', '{route}', 1)", [WS]);
  // From a millisecond before now (the generator writes each record a second before its end): 100 records in each of the 60 minutes.
  await writeLogs(stores, 'reads.series', seriesDefs, now + 999, MINUTE / 100, 60 * 100, true);
  // 2. `agents` agents, a record each 15 minutes over the two days before now.
  const rankedDefs = await writeDefinitions(
    stores,
    'reads.ranked',
    Array.from({ length: agents }, (_, a) => `agent-${String(a).padStart(5, '0')}`),
  );
  await writeLogs(stores, 'reads.ranked', rankedDefs, now, 15 * MINUTE, (2 * DAY) / (15 * MINUTE), false);
  if (historyDays > 0) {
    const history = rankedDefs.map((d) => ({ ...d, workspaceId: WS, event: 'reads.ranked' }));
    await writeRollupHistory(stores, history, now - 2 * DAY, historyDays);
  }
  log(`fixtures (${historyDays} days of rollups before the ranked read's two) in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const series = (q: Partial<SeriesQuery>) => () =>
    seriesOf(
      stores,
      WS,
      { event: 'reads.series', period: 'minute', from: now - HOUR, to: now, agents: [], filters: [], groupBy: ['route'], limit: 100, ...q },
      now,
    );
  const ranked = (q: Partial<RankedComparisonRequest>) => () =>
    rankedComparison(stores, timezones, WS, {
      event: 'reads.ranked',
      period: '1d',
      previous: 'previous_window',
      agents: [],
      filters: [],
      groupBy: ['agent'],
      timezone: 'UTC',
      orderBy: 'value_pct_change',
      direction: 'desc',
      limit: 10,
      now,
      ...q,
    });
  const reads: Timed[] = [
    { name: 'series: 100 groups × 60 minutes', reference: false, call: series({}) },
    { name: 'series: 1 group × 60 minutes', reference: true, call: series({ filters: ['route:r000'] }) },
    { name: `ranked 1d/previous_window, ${agents} agents`, reference: false, call: ranked({}) },
    { name: 'ranked 1d/previous_window, 1 agent', reference: true, call: ranked({ agents: ['agent-00000'] }) },
    { name: `ranked 1h/previous_1d, ${agents} agents`, reference: false, call: ranked({ period: '1h', previous: 'previous_1d' }) },
    { name: 'ranked 1h/previous_1d, 1 agent', reference: true, call: ranked({ period: '1h', previous: 'previous_1d', agents: ['agent-00000'] }) },
  ];
  const check = (await series({})()) as Awaited<ReturnType<ReturnType<typeof series>>>;
  const rankedCheck = (await ranked({})()) as Awaited<ReturnType<ReturnType<typeof ranked>>>;
  const shapeOk = check.series.length === 100 && check.series.every((s) => s.buckets.length === 60) && rankedCheck.data.length === 10 && rankedCheck.truncated;
  log(
    `shape: ${check.series.length} groups × ${check.series[0]?.buckets.length}–${Math.min(...check.series.map((s) => s.buckets.length))} buckets; ranked ${rankedCheck.data.length} (truncated ${rankedCheck.truncated}): ${shapeOk ? 'as built' : 'NOT AS BUILT'}`,
  );

  const times = new Map<string, number[]>(reads.map((r) => [r.name, []]));
  for (let round = 0; round < warmup + calls; round++) {
    for (const read of reads) {
      const t = performance.now();
      await read.call();
      if (round >= warmup) times.get(read.name)!.push(performance.now() - t);
    }
  }
  process.stdout.write(
    `load average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${calls} calls each, after ${warmup} untimed\n`,
  );
  process.stdout.write(`${'read'.padEnd(46)} p50 ms  p99 ms  max ms  target\n`);
  let met = shapeOk;
  for (const read of reads) {
    const ms = times.get(read.name)!;
    const target = read.reference ? null : read.name.startsWith('series') ? TARGET_SERIES_P99_MS : TARGET_RANKED_P99_MS;
    const p99 = percentile(ms, 99);
    const verdict = target === null ? '(for comparison)' : p99 <= target ? `≤ ${target}: met` : `≤ ${target}: NOT MET`;
    if (target !== null && p99 > target) met = false;
    process.stdout.write(
      `${read.name.padEnd(46)} ${percentile(ms, 50).toFixed(1).padStart(6)}  ${p99.toFixed(1).padStart(6)}  ${Math.max(...ms)
        .toFixed(1)
        .padStart(6)}  ${verdict}\n`,
    );
  }
  return met;
});
