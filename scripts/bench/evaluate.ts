// npm run bench:evaluate -- [--policies 10000] [--events 1000] [--workspaces 10] [--minutes 130] [--statements 8] [--history-days 0]
// Times evaluation cycles of the worker over many enabled policies, on fresh embedded stores
// (or the servers of CLICKHOUSE_URL / DATABASE_URL, into a fresh DATA_DIR otherwise), and
// counts the ClickHouse and Postgres queries each cycle issues, with the time spent inside
// each engine (the reference: what of a cycle is the engines' and what is the service's).
// Policies are spread over the events, 60% minute, 30% hour and 10% day, every aggregate and
// condition, and the rule options over them: a quarter pending (with reminders), a quarter
// hysteresis, a quarter comparison, a quarter plain. Targets: a cycle ≤ 2 s, ≤ 10 ClickHouse
// queries per period. One evaluator runs every cycle, as in the worker: the first reads every
// policy whole, the later ones what changed (targetCache.ts). Then the evaluation one inserted
// record drives: the policies of one event (policies / events of them), 20 times: target
// ≤ 50 ms (with 100 policies: --events policies/100).
// --statements N: after each cycle, the N Postgres statements that took the most of its time.
// --history-days N: N days of rollup rows of every event before its logs (lib/rollupHistory.ts),
// so that the worker's reads meet a table of a service that has run for N days, where each
// event's rows span granules of their own; a record a minute each, so a few comparisons judge otherwise.
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config.js';
import { PolicyEvaluator } from '../../src/evaluation/evaluator.js';
import { openStores, storeOptions } from '../../src/stores/index.js';
import { onCleanup, temporaryDir } from './lib/cleanup.js';
import { integerOption, runBench } from './lib/runner.js';
import { countingClickHouse, countingPostgres, newCounts, slowestStatements, type QueryCounts } from './lib/queryCounting.js';
import { writeFixture } from './lib/evaluateFixture.js';
import { writeRollupHistory } from './lib/rollupHistory.js';

const { values } = parseArgs({
  options: {
    policies: { type: 'string', default: '10000' },
    events: { type: 'string', default: '1000' },
    workspaces: { type: 'string', default: '10' },
    minutes: { type: 'string', default: '130' },
    statements: { type: 'string' },
    'history-days': { type: 'string' },
  },
});
const size = { policies: Number(values.policies), events: Number(values.events), workspaces: Number(values.workspaces), minutes: Number(values.minutes) };
const log = (message: string) => process.stderr.write(`${message}\n`);
const TARGET_CYCLE_MS = 2000;
const TARGET_QUERIES_PER_PERIOD = 10;
const TARGET_SIGNAL_MS = 50;

await runBench('evaluate', async () => {
  const statementsShown = integerOption('statements', values.statements, 0, 0, 100);
  const historyDays = integerOption('history-days', values['history-days'], 0, 0, 30);
  const config = loadConfig({ ...process.env, DATA_DIR: temporaryDir('alertmon-bench-evaluate-') });
  const stores = await openStores(storeOptions(config));
  onCleanup(() => stores.close());

  const MINUTE = 60_000;
  // A clock 10 s into a minute: the previous minute has closed, grace included.
  const clock = { now: Math.floor(Date.now() / MINUTE) * MINUTE + 10_000 };
  const dataEnd = clock.now - 10_000;
  let started = performance.now();
  const events = await writeFixture(stores, size, dataEnd);
  if (historyDays > 0)
    await writeRollupHistory(
      stores,
      events.map((e) => ({ workspaceId: e.workspaceId, id: e.eventId, event: e.name, agent: 'bench' })),
      dataEnd - size.minutes * MINUTE,
      historyDays,
    );
  log(
    `fixture: ${size.workspaces} workspaces, ${size.events} events, ${size.policies} policies, ${size.minutes} minutes of logs, ` +
      `${historyDays} days of rollups before them, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  let met = true;
  // One evaluator for every cycle, as the worker keeps one (it keeps the targets read between cycles).
  const counts: QueryCounts = newCounts();
  const cycleEvaluator = new PolicyEvaluator({
    postgres: countingPostgres(stores.postgres, counts),
    clickhouse: countingClickHouse(stores.clickhouse, counts),
    graceMs: config.evaluation.graceMs,
    now: () => clock.now,
  });
  const runCycle = async (label: string) => {
    Object.assign(counts, newCounts());
    started = performance.now();
    const report = await cycleEvaluator.evaluateDuePolicies();
    const ms = performance.now() - started;
    const perTable = [...counts.clickhouse].map(([table, n]) => `${table} ${n}`).join(', ') || 'none';
    const cycleMet = ms <= TARGET_CYCLE_MS && [...counts.clickhouse.values()].every((n) => n <= TARGET_QUERIES_PER_PERIOD);
    met &&= cycleMet;
    process.stdout.write(
      `${label}: ${ms.toFixed(0)} ms for ${report.policies} enabled policies; ${report.evaluations} closed buckets evaluated, ` +
        `${report.raised} alerts raised, ${report.resolved} resolved, ${report.reminders} reminders` +
        (counts.notificationsCommittedAt === null
          ? '; '
          : ` (their notifications committed ${(counts.notificationsCommittedAt - started).toFixed(0)} ms into the cycle); `) +
        `ClickHouse queries: ${perTable} (${counts.clickhouseMs.toFixed(0)} ms inside); ` +
        `Postgres: ${counts.postgresStatements} statements in ${counts.postgresTransactions} transactions (+ BEGIN/COMMIT each, ${counts.postgresMs.toFixed(0)} ms inside); ` +
        `target ≤ ${TARGET_CYCLE_MS} ms and ≤ ${TARGET_QUERIES_PER_PERIOD} ClickHouse queries per period: ${cycleMet ? 'met' : 'NOT MET'}\n`,
    );
    for (const line of slowestStatements(counts, statementsShown)) process.stdout.write(`  ${line}\n`);
  };

  process.stdout.write(
    `bench:evaluate — ${size.policies} policies over ${size.events} events (${stores.clickhouse.mode} ClickHouse, ${stores.postgres.mode} Postgres)\n`,
  );
  await runCycle('cycle 1 (first sight: every policy evaluates its last closed bucket)');
  clock.now += MINUTE;
  await runCycle('cycle 2 (a minute later: minute policies evaluate one new bucket)');
  clock.now += 15_000;
  await runCycle('cycle 3 (15 s later: nothing closed, only early firing is checked)');
  clock.now += 60 * MINUTE;
  await runCycle('cycle 4 (an hour later: minute policies catch up 60 buckets, hour policies one, reminders due)');

  // Data-driven: one event's policies, as a record of it landing would have them evaluated.
  const evaluator = new PolicyEvaluator({ ...stores, graceMs: config.evaluation.graceMs, now: () => clock.now });
  const times: number[] = [];
  let policies = 0;
  for (let i = 0; i < 20; i++) {
    clock.now += 1_000;
    started = performance.now();
    policies = (await evaluator.evaluateEvents([events[i % events.length]!.eventId])).policies;
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const signalMet = times[times.length - 1]! <= TARGET_SIGNAL_MS;
  process.stdout.write(
    `data-driven evaluation of one event (${policies} policies), 20 events: median ${times[9]!.toFixed(1)} ms, max ${times[19]!.toFixed(1)} ms; ` +
      `target ≤ ${TARGET_SIGNAL_MS} ms: ${signalMet ? 'met' : 'NOT MET'}\n`,
  );
  return met && signalMet;
});
