// npm run bench:fleet -- [--agents 10000] [--policies 1000] [--groups 100] [--rounds 5] [--history-days 0]
// Fleet policies judged in the engine, on fresh embedded stores (or the servers of
// CLICKHOUSE_URL / DATABASE_URL). Two fixtures, each with a reference in the same run:
//  1. One event name sent by --agents agents (one definition each), a fleet policy grouped by
//     agent: one bucket judged by the worker's cycle (--rounds times, each from first sight)
//     against the same policy filtered to one agent. Target: ≤ 200 ms for the whole fleet. The
//     on-demand evaluation of the bucket (which answers every group) is timed beside it.
//     --history-days N: N days of minute, hour and day rollup rows before the logs, written
//     straight into the rollups (as a fleet running for N days has them), so that the read
//     meets a table where each definition's rows span many granules.
//  2. --policies fleet policies of --groups agents each, on as many event names: three worker
//     cycles (first sight, a minute later, 15 s later), against the same cycles of 1 % of them.
//     Target: every cycle ≤ 2 s.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config.js';
import { PolicyEvaluator } from '../../src/evaluation/evaluator.js';
import { newId } from '../../src/ids.js';
import { openStores, storeOptions, type Stores } from '../../src/stores/index.js';
import { onCleanup, temporaryDir } from './lib/cleanup.js';
import { countingClickHouse, countingPostgres, newCounts, type QueryCounts } from './lib/queryCounting.js';
import { integerOption, runBench } from './lib/runner.js';
import { writeRollupHistory } from './lib/rollupHistory.js';

const { values } = parseArgs({
  options: {
    agents: { type: 'string' },
    policies: { type: 'string' },
    groups: { type: 'string' },
    rounds: { type: 'string' },
    'history-days': { type: 'string' },
  },
});
const log = (message: string) => process.stderr.write(`${message}\n`);
const MINUTE = 60_000;
const LOGS_PER_MINUTE = 2;
const MINUTES = 4;
const TARGET_BUCKET_MS = 200;
const TARGET_CYCLE_MS = 2000;

/** `names.length` event names in workspace `ws`, each sent by `agents` agents (a definition each), with MINUTES minutes of logs before `now`. */
async function writeFleets(stores: Stores, ws: string, names: readonly string[], agents: number, now: number): Promise<Definition[]> {
  await stores.postgres.query('INSERT INTO workspaces (user_id) VALUES ($1) ON CONFLICT DO NOTHING', [ws]);
  const defs: Definition[] = names.flatMap((event) =>
    Array.from({ length: agents }, (_, a) => ({ id: newId(), event, agent: `agent-${String(a).padStart(5, '0')}` })),
  );
  for (let i = 0; i < defs.length; i += 20_000) {
    const chunk = defs.slice(i, i + 20_000);
    await stores.postgres.query(
      `INSERT INTO event_definitions (event_id, user_id, agent, event, timezone, share_token)
       SELECT id, $1, agent, event, 'UTC', token FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[]) AS u(id, agent, event, token)`,
      [ws, chunk.map((d) => d.id), chunk.map((d) => d.agent), chunk.map((d) => d.event), chunk.map(() => randomBytes(24).toString('base64url'))],
    );
  }
  for (let i = 0; i < defs.length; i += 20_000) {
    const chunk = defs.slice(i, i + 20_000);
    await stores.clickhouse.client.command({
      query: `
        INSERT INTO logs (workspace_id, event_id, agent, event, log_id, value, occurred_at, received_at, day_start, meta)
        SELECT {ws:String}, {ids:Array(UUID)}[i + 1], {agents:Array(String)}[i + 1], {names:Array(String)}[i + 1],
               generateUUIDv4(), (cityHash64(number) % 10000) / 100, occurred, occurred, toDateTime(toStartOfDay(occurred, 'UTC'), 'UTC'), ''
        FROM (
          SELECT number, number % length({ids:Array(UUID)}) AS i,
                 fromUnixTimestamp64Milli({now:Int64} - toInt64(intDiv(number, length({ids:Array(UUID)})) * {step:UInt32}) - 1000, 'UTC') AS occurred
          FROM numbers({rows:UInt64})
        )`,
      query_params: {
        ws,
        ids: chunk.map((d) => d.id),
        agents: chunk.map((d) => d.agent),
        names: chunk.map((d) => d.event),
        now,
        step: MINUTE / LOGS_PER_MINUTE,
        rows: chunk.length * MINUTES * LOGS_PER_MINUTE,
      },
    });
  }
  return defs;
}

interface Definition {
  readonly id: string;
  readonly event: string;
  readonly agent: string;
}

/** Fleet policies grouped by agent on these event names (max above 99.9: a few groups breach), enabled or not. */
async function writeFleetPolicies(stores: Stores, ws: string, names: readonly string[], enabled: boolean, filterAgent?: string): Promise<string[]> {
  const ids = names.map(() => newId());
  await stores.postgres.query(
    `INSERT INTO policies (policy_id, workspace_id, event, group_by, timezone, filter, title, period, aggregate, condition, threshold, severity, enabled)
     SELECT id, $1, event, '{agent}', 'UTC', $4::jsonb, 'fleet bench', 'minute', 'max', 'gt', 99.9, 'warning', $5 FROM unnest($2::uuid[], $3::text[]) AS u(id, event)`,
    [ws, ids, names, JSON.stringify(filterAgent ? { agent: filterAgent } : {}), enabled],
  );
  return ids;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

await runBench('fleet', async () => {
  const agents = integerOption('agents', values.agents, 10_000, 1, 100_000);
  const fleetPolicies = integerOption('policies', values.policies, 1000, 1, 10_000);
  const groups = integerOption('groups', values.groups, 100, 1, 10_000);
  const rounds = integerOption('rounds', values.rounds, 5, 1, 100);
  const historyDays = integerOption('history-days', values['history-days'], 0, 0, 90);
  const config = loadConfig({ ...process.env, DATA_DIR: temporaryDir('alertmon-bench-fleet-') });
  const stores = await openStores(storeOptions(config));
  onCleanup(() => stores.close());
  const clock = { now: Math.floor(Date.now() / MINUTE) * MINUTE + 10_000 };
  const dataEnd = clock.now - 10_000;
  let met = true;

  // 1. One fleet of `agents` agents: one bucket judged.
  let started = performance.now();
  const fleetDefinitions = await writeFleets(stores, 'fleet-one', ['fleet.latency_ms'], agents, dataEnd);
  if (historyDays > 0)
    await writeRollupHistory(
      stores,
      fleetDefinitions.map((d) => ({ ...d, workspaceId: 'fleet-one' })),
      dataEnd - MINUTES * MINUTE,
      historyDays,
    );
  const [whole] = await writeFleetPolicies(stores, 'fleet-one', ['fleet.latency_ms'], false);
  const [one] = await writeFleetPolicies(stores, 'fleet-one', ['fleet.latency_ms'], false, 'agent-00000');
  log(
    `fixture 1: ${agents} agents of one event name, ${historyDays} days of rollups before the logs, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const evaluator = new PolicyEvaluator({ ...stores, graceMs: config.evaluation.graceMs, now: () => clock.now, maxGroups: config.policies.maxGroups });
  const times = { whole: [] as number[], one: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    for (const [name, id] of [
      ['one', one!],
      ['whole', whole!],
    ] as const) {
      started = performance.now();
      await evaluator.evaluateLastClosedBucket('fleet-one', id);
      times[name].push(performance.now() - started);
    }
  }
  const wholeMs = median(times.whole);
  const oneMs = median(times.one);
  const bucketMet = wholeMs <= TARGET_BUCKET_MS;
  met &&= bucketMet;
  process.stdout.write(
    `one bucket of a fleet policy grouped by agent, ${agents} agents: median ${wholeMs.toFixed(1)} ms over ${rounds} rounds ` +
      `(the same policy filtered to one agent: ${oneMs.toFixed(1)} ms; ratio ${(wholeMs / oneMs).toFixed(2)}); target ≤ ${TARGET_BUCKET_MS} ms: ${bucketMet ? 'met' : 'NOT MET'}\n`,
  );

  // 2. Many fleet policies of `groups` agents: whole cycles, against 1 % of them.
  started = performance.now();
  const referenceCount = Math.max(1, Math.round(fleetPolicies / 100));
  const names = Array.from({ length: fleetPolicies + referenceCount }, (_, i) => `fleet.metric_${i}`);
  await writeFleets(stores, 'fleet-many', names, groups, dataEnd);
  const reference = await writeFleetPolicies(stores, 'fleet-many', names.slice(fleetPolicies), true);
  const many = await writeFleetPolicies(stores, 'fleet-many', names.slice(0, fleetPolicies), false);
  log(`fixture 2: ${names.length} event names × ${groups} agents in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const counts: QueryCounts = newCounts();
  const cycles = async (label: string, policies: number) => {
    const start = clock.now;
    const cycleEvaluator = new PolicyEvaluator({
      postgres: countingPostgres(stores.postgres, counts),
      clickhouse: countingClickHouse(stores.clickhouse, counts),
      graceMs: config.evaluation.graceMs,
      now: () => clock.now,
      maxGroups: config.policies.maxGroups,
    });
    const ms: number[] = [];
    for (const [step, what] of [
      [0, 'first sight'],
      [MINUTE, 'a minute later'],
      [15_000, '15 s later'],
    ] as const) {
      clock.now += step;
      Object.assign(counts, newCounts());
      const t = performance.now();
      const report = await cycleEvaluator.evaluateDuePolicies();
      ms.push(performance.now() - t);
      process.stdout.write(
        `  ${label} cycle (${what}): ${ms[ms.length - 1]!.toFixed(0)} ms for ${policies} fleet policies × ${groups} groups; ${report.evaluations} group-buckets judged, ` +
          `${report.raised} raised, ${report.resolved} resolved; ClickHouse ${[...counts.clickhouse.values()].reduce((a, b) => a + b, 0)} queries (${counts.clickhouseMs.toFixed(0)} ms inside), ` +
          `Postgres ${counts.postgresStatements} statements (${counts.postgresMs.toFixed(0)} ms inside)\n`,
      );
    }
    clock.now = start;
    return ms;
  };
  const referenceMs = await cycles('reference', reference.length);
  await stores.postgres.query('UPDATE policies SET enabled = (policy_id = ANY($1::uuid[])) WHERE workspace_id = $2', [many, 'fleet-many']);
  const manyMs = await cycles('measured', many.length);
  const cycleMet = manyMs.every((ms) => ms <= TARGET_CYCLE_MS);
  met &&= cycleMet;
  process.stdout.write(
    `${fleetPolicies} fleet policies × ${groups} groups: slowest cycle ${Math.max(...manyMs).toFixed(0)} ms ` +
      `(${referenceCount} of them: ${Math.max(...referenceMs).toFixed(0)} ms); target every cycle ≤ ${TARGET_CYCLE_MS} ms: ${cycleMet ? 'met' : 'NOT MET'}\n`,
  );
  return met;
});
