import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { eventIdOf, isoMinutesAgo, queryRows, sendLogs, storedLogCount, type SentLog } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { describeInOneRun } from '../../helpers/stores.js';

/** count and sum of the workspace in the raw table and each rollup. */
async function countsEverywhere(svc: TestService, ws: string) {
  const totals: Record<string, { count: number; value: number }> = {};
  for (const [name, query] of [
    ['logs', 'SELECT count() AS count, sum(value) AS value FROM logs WHERE workspace_id = {ws:String}'],
    ['minute', 'SELECT sum(count) AS count, sum(value) AS value FROM rollup_minute WHERE workspace_id = {ws:String}'],
    ['hour', 'SELECT sum(count) AS count, sum(value) AS value FROM rollup_hour WHERE workspace_id = {ws:String}'],
    ['day', 'SELECT sum(count) AS count, sum(value) AS value FROM rollup_day WHERE workspace_id = {ws:String}'],
  ] as const) {
    const [row] = await queryRows<{ count: number; value: number }>(svc.stores.clickhouse, query, { ws });
    totals[name] = row!;
  }
  return totals;
}

const everywhere = (count: number, value: number) => ({ logs: { count, value }, minute: { count, value }, hour: { count, value }, day: { count, value } });

const batch = (n: number, value = 1): SentLog[] =>
  Array.from({ length: n }, (_, i) => ({ log_id: randomUUID(), event: 'retried', value, occurred_at: isoMinutesAgo(i % 50) }));

describeInOneRun('idempotency by log_id', function () {
  this.timeout(120_000);
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('does not count a re-sent batch again, in raw data or any rollup', async () => {
    const token = await svc.tokenFor('retry-ws');
    const logs = batch(100, 2);
    await sendLogs(svc, token, logs);
    await sendLogs(svc, token, logs);
    expect(await countsEverywhere(svc, 'retry-ws')).to.deep.equal(everywhere(100, 200));
  });

  it('stores only the new records of a retry that mixes old and new', async () => {
    const token = await svc.tokenFor('mixed-ws');
    const first = batch(100, 1);
    await sendLogs(svc, token, first);
    await sendLogs(svc, token, [...first.slice(50), ...batch(30, 10)]);
    expect(await countsEverywhere(svc, 'mixed-ws')).to.deep.equal(everywhere(130, 400));
  });

  it('counts a log_id repeated inside one batch, or in concurrent batches, once', async () => {
    const token = await svc.tokenFor('repeat-ws');
    const id = randomUUID();
    const same = { log_id: id, event: 'retried', value: 5 };
    await sendLogs(svc, token, [same, same, same]);
    await Promise.all(Array.from({ length: 8 }, () => sendLogs(svc, token, [same])));
    expect(await countsEverywhere(svc, 'repeat-ws')).to.deep.equal(everywhere(1, 5));
  });

  it('keeps workspaces apart: the same log_id in two workspaces is stored twice', async () => {
    const logs = batch(10, 1);
    await sendLogs(svc, await svc.tokenFor('twin-a'), logs);
    await sendLogs(svc, await svc.tokenFor('twin-b'), logs);
    expect(await storedLogCount(svc.stores.clickhouse, 'twin-a')).to.equal(10);
    expect(await storedLogCount(svc.stores.clickhouse, 'twin-b')).to.equal(10);
  });

  it('stores records without a log_id every time they are sent', async () => {
    const token = await svc.tokenFor('anonymous-ws');
    const logs = [{ event: 'retried', value: 1 }];
    await sendLogs(svc, token, logs);
    await sendLogs(svc, token, logs);
    expect(await storedLogCount(svc.stores.clickhouse, 'anonymous-ws')).to.equal(2);
  });

  it('still recognises retries after a restart', async () => {
    const token = await svc.tokenFor('restart-ws');
    const logs = batch(120, 3);
    await sendLogs(svc, token, logs);
    const options = svc.storeOptions;
    await svc.close();
    svc = await startTestService({ storeOptions: options });
    await sendLogs(svc, token, [...logs, ...batch(5, 3)]);
    expect(await countsEverywhere(svc, 'restart-ws')).to.deep.equal(everywhere(125, 375));
    expect(await eventIdOf(svc, token, 'default', 'retried')).to.be.a('string');
  });
});

describe('event definitions created by logs', function () {
  this.timeout(60_000);
  it('creates every new pair of a first batch, and of concurrent batches sharing new pairs, once', async () => {
    const svc = await startTestService();
    try {
      const token = await svc.tokenFor('many-pairs-ws');
      // One batch bringing 250 new pairs, then eight concurrent batches of 60 new pairs each,
      // every pair shared by two of them.
      const first = Array.from({ length: 250 }, (_, i) => ({ agent: `agent-${i % 10}`, event: `first.${i}`, value: i }));
      await sendLogs(svc, token, first);
      await Promise.all(
        Array.from({ length: 8 }, (_, b) =>
          sendLogs(
            svc,
            token,
            Array.from({ length: 60 }, (_, i) => ({ agent: 'shared', event: `pair.${(b * 30 + i) % 240}`, value: 1 })),
          ),
        ),
      );
      const rows = await svc.stores.postgres.query<{ n: number; pairs: number }>(
        "SELECT count(*)::int AS n, count(DISTINCT (agent, event))::int AS pairs FROM event_definitions WHERE user_id = 'many-pairs-ws'",
      );
      expect(rows[0]).to.deep.equal({ n: 250 + 240, pairs: 250 + 240 });
      expect(await storedLogCount(svc.stores.clickhouse, 'many-pairs-ws')).to.equal(250 + 8 * 60);
    } finally {
      await svc.close();
    }
  });

  it('creates one definition when concurrent batches race for a new pair', async () => {
    const svc = await startTestService();
    try {
      const token = await svc.tokenFor('race-ws');
      await Promise.all(Array.from({ length: 10 }, (_, i) => sendLogs(svc, token, [{ agent: 'racer', event: 'first.seen', value: i }])));
      const [row] = await svc.stores.postgres.query<{ n: number }>("SELECT count(*)::int AS n FROM event_definitions WHERE user_id = 'race-ws'");
      expect(row!.n).to.equal(1);
      expect(await storedLogCount(svc.stores.clickhouse, 'race-ws')).to.equal(10);
    } finally {
      await svc.close();
    }
  });
});
