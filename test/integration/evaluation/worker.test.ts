import { expect } from 'chai';
import { PolicyEvaluator } from '../../../src/evaluation/evaluator.js';
import type { ClickHouseStore } from '../../../src/stores/clickhouse.js';
import { releaseLease, tryTakeLease } from '../../../src/evaluation/lease.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { alertsOf, baseMinute, createEvent, createPolicy, evaluatorAt, GRACE_MS, IDLE_WORKER_ENV, ingestAt, MINUTE, outboxOf } from './helpers.js';

describe('evaluation worker', function () {
  this.timeout(180_000);
  let svc: TestService;
  let token: string;
  const ws = 'eval-worker-ws';
  let n = 0;
  /** Each test gets its own event and its own minutes, 30 minutes apart. */
  const fresh = async () => {
    n += 1;
    const event = `worker-${n}`;
    return { event, eventId: await createEvent(svc, token, event), t0: baseMinute() + n * 30 * MINUTE };
  };
  const after_ = (bucketStart: number) => bucketStart + MINUTE + GRACE_MS + 1;

  before(async () => {
    svc = await startTestService({ env: IDLE_WORKER_ENV });
    token = await svc.tokenFor(ws);
  });
  after(() => svc.close());

  it('raises once, updates without notifying again, then auto-resolves and notifies; the outbox carries the alert as the API shows it', async () => {
    const { event, eventId, t0 } = await fresh();
    // average: an open bucket never fires early, so each step below is one closed bucket.
    const policyId = await createPolicy(svc, token, { event_id: eventId, aggregate: 'average', condition: 'gt', threshold: 10 });
    // Minutes t0, t0+1: breach (15, then 20); t0+2: clear (3).
    await ingestAt(svc.stores, ws, event, [
      [15, t0 + 1000],
      [20, t0 + MINUTE + 1000],
      [3, t0 + 2 * MINUTE + 1000],
    ]);
    const clock = { now: t0 + MINUTE / 2 };
    const evaluator = evaluatorAt(svc.stores, clock);
    await evaluator.evaluateDuePolicies(); // first sight: starts at the bucket before t0, empty and clear

    clock.now = after_(t0);
    await evaluator.evaluateDuePolicies();
    let [alert] = await alertsOf(svc, token, policyId);
    expect(alert).to.include({
      status: 'triggered',
      value: 15,
      count: 1,
      bucket_start: new Date(t0).toISOString(),
      resolved_at: null,
      acknowledged_at: null,
      alerted_at: null,
    });
    expect(alert!.triggered_at).to.equal(new Date(clock.now).toISOString());

    clock.now = after_(t0 + MINUTE);
    await evaluator.evaluateDuePolicies();
    [alert] = await alertsOf(svc, token, policyId);
    expect(alert).to.include({ status: 'triggered', value: 20, bucket_start: new Date(t0 + MINUTE).toISOString() });

    clock.now = after_(t0 + 2 * MINUTE);
    await evaluator.evaluateDuePolicies();
    const alerts = await alertsOf(svc, token, policyId);
    expect(alerts).to.have.length(1);
    expect(alerts[0]).to.include({ status: 'resolved', resolved_at: new Date(clock.now).toISOString(), value: 20 });

    const outbox = await outboxOf(svc.stores, policyId);
    expect(outbox.map((o) => [o.type, o.alert.status])).to.deep.equal([
      ['alert.triggered', 'triggered'],
      ['alert.resolved', 'resolved'],
    ]);
    expect(outbox[0]!.alert).to.include({ alert_id: alerts[0]!.alert_id, value: 15, resolved_at: null });
    const read = await svc.request('GET', `/v1.0/alerts/${alerts[0]!.alert_id}`, { token });
    expect(outbox[1]!.alert).to.deep.equal(read.body);
  });

  it('leaves an open alert as it is while its agent is silent, and resolves it on the first bucket that clears', async () => {
    const { event, eventId, t0 } = await fresh();
    const policyId = await createPolicy(svc, token, { event_id: eventId, aggregate: 'max', condition: 'gt', threshold: 10 });
    // Minute t0 breaches (15); t0+1 … t0+3 are empty (max: no verdict); t0+4 clears (3).
    await ingestAt(svc.stores, ws, event, [
      [15, t0 + 1000],
      [3, t0 + 4 * MINUTE + 1000],
    ]);
    const clock = { now: t0 - MINUTE / 2 };
    const evaluator = evaluatorAt(svc.stores, clock);
    await evaluator.evaluateDuePolicies();
    clock.now = after_(t0);
    await evaluator.evaluateDuePolicies();
    const [raised] = await alertsOf(svc, token, policyId);
    expect(raised).to.include({ status: 'triggered', value: 15 });

    for (let minute = 1; minute <= 3; minute++) {
      clock.now = after_(t0 + minute * MINUTE);
      await evaluator.evaluateDuePolicies();
      expect(await alertsOf(svc, token, policyId), `after empty minute ${minute}`).to.deep.equal([raised]);
    }
    // A restart in the silence judges none of its minutes again, and the next one still resolves.
    clock.now = after_(t0 + 4 * MINUTE);
    const report = await evaluatorAt(svc.stores, clock).evaluateEvents([eventId]);
    expect(report).to.include({ evaluations: 1, resolved: 1 });
    const [resolved] = await alertsOf(svc, token, policyId);
    expect(resolved).to.include({ alert_id: raised!.alert_id, status: 'resolved', value: 15, bucket_start: new Date(t0).toISOString() });
    expect((await outboxOf(svc.stores, policyId)).map((o) => o.type)).to.deep.equal(['alert.triggered', 'alert.resolved']);
  });

  it('fires early on an open bucket only where the verdict cannot change', async () => {
    const { event, eventId, t0 } = await fresh();
    const rules = {
      countGt: { aggregate: 'count', condition: 'gt', threshold: 1 },
      sumGte: { aggregate: 'sum', condition: 'gte', threshold: 5 },
      maxGt: { aggregate: 'max', condition: 'gt', threshold: 3 },
      minLt: { aggregate: 'min', condition: 'lt', threshold: 2 },
      averageGt: { aggregate: 'average', condition: 'gt', threshold: 1 },
      maxLt: { aggregate: 'max', condition: 'lt', threshold: 100 },
      sumEq: { aggregate: 'sum', condition: 'eq', threshold: 5 },
      countEq: { aggregate: 'count', condition: 'eq', threshold: 2 },
      p95Gt: { aggregate: 'p95_est', condition: 'gt', threshold: 0 },
    } as const;
    const ids: Record<string, string> = {};
    for (const [name, rule] of Object.entries(rules)) ids[name] = await createPolicy(svc, token, { event_id: eventId, ...rule });
    const clock = { now: t0 - 30_000 };
    const evaluator = evaluatorAt(svc.stores, clock);
    await evaluator.evaluateDuePolicies();
    await ingestAt(svc.stores, ws, event, [
      [1, t0 + 1000],
      [4, t0 + 2000],
    ]);

    clock.now = t0 + 20_000; // bucket t0 is open
    await evaluator.evaluateDuePolicies();
    const early = new Set(['countGt', 'sumGte', 'maxGt', 'minLt']);
    for (const name of Object.keys(rules)) {
      expect((await alertsOf(svc, token, ids[name]!)).length, name).to.equal(early.has(name) ? 1 : 0);
    }

    // Closed, the bucket breaches every rule: each policy has one alert, notified once.
    clock.now = after_(t0);
    await evaluator.evaluateDuePolicies();
    for (const name of Object.keys(rules)) {
      expect((await alertsOf(svc, token, ids[name]!)).length, name).to.equal(1);
      expect(
        (await outboxOf(svc.stores, ids[name]!)).map((o) => o.type),
        name,
      ).to.deep.equal(['alert.triggered']);
    }
  });

  it('leaves a policy row as it is while its open bucket breaches again, under the alert it raised early or short of its pending run', async () => {
    const { event, eventId, t0 } = await fresh();
    const rule = { event_id: eventId, aggregate: 'max', condition: 'gt', threshold: 3 } as const;
    const raising = await createPolicy(svc, token, rule);
    const pending = await createPolicy(svc, token, { ...rule, pending_buckets: 2 });
    const clock = { now: t0 - 30_000 };
    const evaluator = evaluatorAt(svc.stores, clock);
    await evaluator.evaluateDuePolicies();
    await ingestAt(svc.stores, ws, event, [[4, t0 + 1000]]);
    const rowVersions = async () =>
      (
        await svc.stores.postgres.query<{ v: string }>('SELECT xmin::text AS v FROM policies WHERE policy_id = ANY($1::uuid[]) ORDER BY policy_id', [
          [raising, pending],
        ])
      ).map((r) => r.v);

    clock.now = t0 + 20_000; // bucket t0 is open and fires early where it can
    await evaluator.evaluateDuePolicies();
    expect(await alertsOf(svc, token, raising)).to.have.length(1);
    expect(await alertsOf(svc, token, pending)).to.have.length(0);
    const versions = await rowVersions();
    for (const at of [t0 + 30_000, t0 + 40_000]) {
      clock.now = at;
      await evaluator.evaluateDuePolicies();
      expect(await rowVersions(), 'nothing to write').to.deep.equal(versions);
    }

    // Closed, the bucket is judged and moves both: still the one alert, notified once, and a run of one.
    clock.now = after_(t0);
    await evaluator.evaluateDuePolicies();
    const [moved, movedToo] = await rowVersions();
    expect(moved).to.not.equal(versions[0]);
    expect(movedToo).to.not.equal(versions[1]);
    expect((await alertsOf(svc, token, raising)).map((a) => a.status)).to.deep.equal(['triggered']);
    expect((await outboxOf(svc.stores, raising)).map((o) => o.type)).to.deep.equal(['alert.triggered']);
    const run = await svc.stores.postgres.query<{ breach_run: number }>('SELECT breach_run FROM policies WHERE policy_id = $1', [pending]);
    expect(run[0]!.breach_run).to.equal(1);
  });

  it('does not fire sum early once a negative value was seen', async () => {
    const { event, eventId, t0 } = await fresh();
    const policyId = await createPolicy(svc, token, { event_id: eventId, aggregate: 'sum', condition: 'gt', threshold: 5 });
    const clock = { now: t0 - 30_000 };
    const evaluator = evaluatorAt(svc.stores, clock);
    await evaluator.evaluateDuePolicies();
    await ingestAt(svc.stores, ws, event, [
      [10, t0 + 1000],
      [-1, t0 + 2000],
    ]);
    clock.now = t0 + 20_000;
    await evaluator.evaluateDuePolicies();
    expect(await alertsOf(svc, token, policyId)).to.have.length(0);
    clock.now = after_(t0);
    await evaluator.evaluateDuePolicies();
    expect(await alertsOf(svc, token, policyId)).to.have.length(1);
  });

  it('neither skips nor repeats a bucket across a restart of the service', async () => {
    const { event, eventId, t0 } = await fresh();
    const policyId = await createPolicy(svc, token, { event_id: eventId, aggregate: 'count', condition: 'gte', threshold: 1 });
    // Data in minutes 0, 2, 4 and 6: each is a breach followed by a clear minute.
    await ingestAt(
      svc.stores,
      ws,
      event,
      [0, 2, 4, 6].map((m) => [1, t0 + m * MINUTE + 1000] as const),
    );
    const clock = { now: t0 - 30_000 };
    await evaluatorAt(svc.stores, clock).evaluateDuePolicies();
    clock.now = after_(t0 + 2 * MINUTE);
    const first = await evaluatorAt(svc.stores, clock).evaluateDuePolicies();

    await svc.close();
    svc = await startTestService({ env: IDLE_WORKER_ENV, storeOptions: svc.storeOptions });
    clock.now = after_(t0 + 7 * MINUTE);
    const second = await evaluatorAt(svc.stores, clock).evaluateDuePolicies();
    clock.now += 10_000;
    const third = await evaluatorAt(svc.stores, clock).evaluateDuePolicies();

    expect(first.evaluations + second.evaluations + third.evaluations).to.be.at.least(8);
    const alerts = (await alertsOf(svc, token, policyId)).reverse();
    expect(alerts.map((a) => a.bucket_start)).to.deep.equal([0, 2, 4, 6].map((m) => new Date(t0 + m * MINUTE).toISOString()));
    expect(alerts.map((a) => a.status)).to.deep.equal(['resolved', 'resolved', 'resolved', 'resolved']);
    expect((await outboxOf(svc.stores, policyId)).map((o) => o.type)).to.deep.equal(Array(4).fill(['alert.triggered', 'alert.resolved']).flat());
  });

  it('never creates two open alerts for a policy when two workers race', async () => {
    const { event, eventId, t0 } = await fresh();
    const policyIds: string[] = [];
    for (let i = 0; i < 20; i++) policyIds.push(await createPolicy(svc, token, { event_id: eventId, aggregate: 'count', condition: 'gt', threshold: 0 }));
    await ingestAt(svc.stores, ws, event, [[1, t0 + 1000]]);
    const clock = { now: after_(t0) - MINUTE };
    await evaluatorAt(svc.stores, clock).evaluateDuePolicies();
    clock.now = after_(t0) + 20_000; // the open bucket after t0 is empty: only t0 breaches
    const workers = [evaluatorAt(svc.stores, clock), evaluatorAt(svc.stores, clock), evaluatorAt(svc.stores, clock)];
    await Promise.all(workers.map((w) => w.evaluateDuePolicies()));
    await Promise.all(workers.map((w) => w.evaluateDuePolicies()));
    for (const policyId of policyIds) {
      expect(await alertsOf(svc, token, policyId)).to.have.length(1);
      expect(await outboxOf(svc.stores, policyId)).to.have.length(1);
    }
  });

  it('leaves a bucket that changed nothing to the next cycle when the policy is edited before its progress is written', async () => {
    const { event, eventId, t0 } = await fresh();
    const policyId = await createPolicy(svc, token, { event_id: eventId, aggregate: 'count', condition: 'gt', threshold: 5 });
    await ingestAt(svc.stores, ws, event, [
      [1, t0 - MINUTE + 1000],
      [1, t0 + 1000],
    ]);
    const clock = { now: after_(t0 - MINUTE) };
    await evaluatorAt(svc.stores, clock).evaluateDuePolicies();

    // Bucket t0 is clear under count gt 5 and changes nothing but the progress; the edit to
    // count gt 0 lands after the cycle read the policy and before it writes that progress.
    const base = svc.stores.postgres;
    let edited = false;
    const editing = {
      ...base,
      async query(text: string, params?: unknown[]) {
        if (!edited && text.includes('p.xmin = u.row_version')) {
          edited = true;
          expect((await svc.request('PUT', `/v1.0/policies/${policyId}`, { token, body: { threshold: 0 } })).status).to.equal(200);
        }
        return base.query(text, params);
      },
    } as typeof base;
    clock.now = after_(t0);
    await evaluatorAt({ ...svc.stores, postgres: editing }, clock).evaluateDuePolicies();
    expect(edited).to.equal(true);
    expect(await alertsOf(svc, token, policyId)).to.have.length(0);

    // The next cycle judges bucket t0 by the rule as edited.
    await evaluatorAt(svc.stores, clock).evaluateDuePolicies();
    const alerts = await alertsOf(svc, token, policyId);
    expect(alerts.map((a) => [a.status, a.bucket_start, a.threshold])).to.deep.equal([['triggered', new Date(t0).toISOString(), 0]]);
  });

  it('lets one worker process at a time hold the evaluation lease', async () => {
    const { postgres } = svc.stores;
    const [a, b] = await Promise.all([tryTakeLease(postgres, 'test-lease', 'a', 60_000), tryTakeLease(postgres, 'test-lease', 'b', 60_000)]);
    expect([a, b].filter(Boolean)).to.have.length(1);
    const holder = a ? 'a' : 'b';
    const other = a ? 'b' : 'a';
    expect(await tryTakeLease(postgres, 'test-lease', other, 60_000)).to.equal(false);
    expect(await tryTakeLease(postgres, 'test-lease', holder, 60_000)).to.equal(true);
    await releaseLease(postgres, 'test-lease', holder);
    expect(await tryTakeLease(postgres, 'test-lease', other, 60_000)).to.equal(true);
  });

  it('stops evaluating a policy at once when it is disabled or deleted', async () => {
    const { event, eventId, t0 } = await fresh();
    const disabled = await createPolicy(svc, token, { event_id: eventId, aggregate: 'count', condition: 'gt', threshold: 0 });
    const deleted = await createPolicy(svc, token, { event_id: eventId, aggregate: 'count', condition: 'gt', threshold: 0 });
    const clock = { now: t0 - 30_000 };
    const evaluator: PolicyEvaluator = evaluatorAt(svc.stores, clock);
    await evaluator.evaluateDuePolicies();
    await ingestAt(svc.stores, ws, event, [[1, t0 + 1000]]);
    expect((await svc.request('PUT', `/v1.0/policies/${disabled}`, { token, body: { enabled: false } })).status).to.equal(200);
    expect((await svc.request('DELETE', `/v1.0/policies/${deleted}`, { token })).status).to.equal(204);
    clock.now = after_(t0);
    await evaluator.evaluateDuePolicies();
    expect(await alertsOf(svc, token, disabled)).to.have.length(0);
    expect(await alertsOf(svc, token, deleted)).to.have.length(0);
  });

  /** The service's ClickHouse store, counting the queries that run at once and in all (until their rows are read). */
  const countedClickHouse = () => {
    const queries = { running: 0, mostRunning: 0, all: 0 };
    const client = svc.stores.clickhouse.client;
    const query = (async (params: Parameters<typeof client.query>[0]) => {
      queries.running += 1;
      queries.all += 1;
      queries.mostRunning = Math.max(queries.mostRunning, queries.running);
      try {
        const rows = await (await client.query(params)).json();
        return { json: async () => rows };
      } finally {
        queries.running -= 1;
      }
    }) as unknown as typeof client.query;
    const clickhouse: ClickHouseStore = { ...svc.stores.clickhouse, client: Object.assign(Object.create(client) as typeof client, { query }) };
    return { clickhouse, queries };
  };

  /** Minute, hour and day policies of a new event, its one log in the hour after the next UTC midnight. */
  const threePeriods = async (event: string) => {
    const eventId = await createEvent(svc, token, event);
    const day = Math.floor(baseMinute() / 86_400_000) * 86_400_000 + 86_400_000;
    const hour = day + 3_600_000;
    await ingestAt(svc.stores, ws, event, [[5, hour + 1000]]);
    const policies = await Promise.all(
      (['minute', 'hour', 'day'] as const).map((period) =>
        createPolicy(svc, token, { event_id: eventId, period, aggregate: 'count', condition: 'gt', threshold: 0 }),
      ),
    );
    const { clickhouse, queries } = countedClickHouse();
    // First sight once the log's hour has closed: the hour policy's last closed bucket holds it,
    // and the day policy's open bucket fires early (a count only grows); the minute policy has none.
    const clock = { now: hour + 3_600_000 + GRACE_MS + 1 };
    const evaluator = new PolicyEvaluator({ postgres: svc.stores.postgres, clickhouse, graceMs: GRACE_MS, now: () => clock.now });
    const bucketsAlerted = () => Promise.all(policies.map(async (id) => (await alertsOf(svc, token, id)).map((a) => a.bucket_start)));
    return { eventId, evaluator, queries, bucketsAlerted, expected: [[], [new Date(hour).toISOString()], [new Date(day).toISOString()]] };
  };

  it('judges minute, hour and day policies in one cycle, one ClickHouse query at a time', async () => {
    const { evaluator, queries, bucketsAlerted, expected } = await threePeriods('three-periods');
    expect((await evaluator.evaluateDuePolicies()).raised).to.equal(2);
    expect(await bucketsAlerted()).to.deep.equal(expected);
    expect(queries.mostRunning).to.equal(1);
  });

  it("judges an event's minute, hour and day policies from one ClickHouse query when its records drive the evaluation", async () => {
    const { eventId, evaluator, queries, bucketsAlerted, expected } = await threePeriods('three-periods-data');
    expect(await evaluator.evaluateEvents([eventId])).to.include({ policies: 3, raised: 2 });
    expect(await bucketsAlerted()).to.deep.equal(expected);
    expect(queries.all).to.equal(1);
  });

  it('reads no bucket of a rule that cannot fire early until one has closed', async () => {
    const { event, eventId, t0 } = await fresh();
    const rules = [
      { aggregate: 'average', condition: 'gt', threshold: 1 },
      { aggregate: 'p95_est', condition: 'gt', threshold: 1 },
      { aggregate: 'min', condition: 'gt', threshold: 1 },
      // Compared with the same minute a day earlier, which has no logs: no verdict.
      { aggregate: 'average', condition: 'gt', threshold: 1, compare_to: 'previous_1d' },
    ] as const;
    const ids = await Promise.all(rules.map((rule) => createPolicy(svc, token, { event_id: eventId, ...rule })));
    const { clickhouse, queries } = countedClickHouse();
    // The bucket before t0 is judged first (new policies start with the last bucket that has ended).
    const clock = { now: after_(t0 - MINUTE) };
    const evaluator = new PolicyEvaluator({ postgres: svc.stores.postgres, clickhouse, graceMs: GRACE_MS, now: () => clock.now });
    await evaluator.evaluateEvents([eventId]);
    await ingestAt(svc.stores, ws, event, [
      [5, t0 + 1000],
      [7, t0 + 2000],
    ]);
    queries.all = 0;
    for (const at of [t0 + 20_000, t0 + 40_000, t0 + MINUTE + GRACE_MS - 1000]) {
      clock.now = at;
      await evaluator.evaluateEvents([eventId]);
    }
    expect(queries.all, 'bucket t0 open, then in its grace time').to.equal(0);

    // Closed, bucket t0 is read and judged: the rules without a comparison breach.
    clock.now = after_(t0);
    expect(await evaluator.evaluateEvents([eventId])).to.include({ evaluations: 4, raised: 3 });
    expect(queries.all).to.equal(1);
    const alerted = await Promise.all(ids.map(async (id) => (await alertsOf(svc, token, id)).map((a) => a.bucket_start)));
    const t0Alert = [new Date(t0).toISOString()];
    expect(alerted).to.deep.equal([t0Alert, t0Alert, t0Alert, []]);
  });

  it('evaluates day buckets at local midnight of the event timezone', async () => {
    const dayStart = Date.parse(new Date(baseMinute() - 86_400_000).toISOString().slice(0, 10) + 'T18:30:00Z'); // midnight in Kolkata
    const eventId = await createEvent(svc, token, 'kolkata-day', 'Asia/Kolkata');
    // One log just before the local day starts, three inside it.
    await ingestAt(svc.stores, ws, 'kolkata-day', [
      [1, dayStart - 1000],
      [1, dayStart],
      [1, dayStart + 3_600_000],
      [1, dayStart + 86_400_000 - 1000],
    ]);
    const policyId = await createPolicy(svc, token, { event_id: eventId, period: 'day', aggregate: 'count', condition: 'eq', threshold: 3 });
    const res = await svc.request('POST', `/v1.0/policies/${policyId}/evaluate`, {
      token,
      body: { at: new Date(dayStart + 86_400_000 + 60_000).toISOString() },
    });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({
      bucket_start: new Date(dayStart).toISOString(),
      bucket_end: new Date(dayStart + 86_400_000).toISOString(),
      count: 3,
      value: 3,
      breached: true,
    });
    expect(res.body.alert).to.include({ status: 'triggered', period: 'day', count: 3 });
  });
});
