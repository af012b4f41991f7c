// Fleet policies evaluated on the real engines: a policy grouped by agent raises, updates and
// resolves exactly the alerts one policy per agent would (pending runs, hysteresis, no data,
// comparison, early firing, manual resolve), a silent agent raises its no_data alert and is
// forgotten 24 hours after its last record, the groups come from one ClickHouse query
// whatever their number, and concurrent evaluations keep one open alert per group.
import { expect } from 'chai';
import type { AlertJson } from '../../../src/alerts/model.js';
import { PolicyEvaluator } from '../../../src/evaluation/evaluator.js';
import { localDayOf } from '../../../src/time/localDay.js';
import { countingClickHouse } from '../../helpers/countingClickHouse.js';
import { waitFor } from '../../helpers/waitFor.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import {
  alertsOf,
  baseMinute,
  createEvent,
  createPolicy,
  evaluatorAt,
  GRACE_MS,
  IDLE_WORKER_ENV,
  ingestAt,
  ingestFromAgents,
  MINUTE,
  outboxOf,
  RULE_OPTION_POLICIES,
} from './helpers.js';

const HOUR = 3_600_000;
/** What the fleet read's query looks like (src/rollups/groupStats.ts): the policies joined as a table. */
const isFleetRead = (sql: string) => sql.includes('arrayZip(');

describe('fleet policies: evaluation', function () {
  this.timeout(300_000);
  let svc: TestService;
  let token: string;
  const ws = 'fleet-eval-ws';
  let n = 0;
  /** Each test gets its own event name, its agents' definitions, and its own stretch of time. */
  const fresh = async (agents: readonly string[]) => {
    n += 1;
    const event = `fleet-${n}`;
    const eventIds = new Map<string, string>();
    for (const agent of agents) eventIds.set(agent, await createEvent(svc, token, event, 'UTC', agent));
    return { event, eventIds, t0: baseMinute() + n * 3 * HOUR };
  };
  const after_ = (bucketStart: number, length = MINUTE) => bucketStart + length + GRACE_MS + 1;

  before(async () => {
    svc = await startTestService({ env: IDLE_WORKER_ENV });
    token = await svc.tokenFor(ws);
  });
  after(() => svc.close());

  /** The alert as a person compares it: everything an evaluation decides (a manual resolve's instant aside). */
  const decided = (a: AlertJson) => ({
    labels: a.labels,
    event_id: a.event_id,
    status: a.status,
    value: a.value,
    aggregate_value: a.aggregate_value,
    comparison_value: a.comparison_value,
    count: a.count,
    min: a.min,
    max: a.max,
    bucket_start: a.bucket_start,
    bucket_end: a.bucket_end,
    breaching_since: a.breaching_since,
    breaching_buckets: a.breaching_buckets,
    peak_value: a.peak_value,
    silent_since: a.silent_since,
    triggered_at: a.triggered_at,
    resolved: a.resolved_at !== null,
  });
  const inOrder = (alerts: readonly AlertJson[]) =>
    [...alerts].sort((a, b) => `${a.triggered_at}${a.bucket_start}`.localeCompare(`${b.triggered_at}${b.bucket_start}`));
  const notified = async (policyId: string, alertIds: readonly string[]) => {
    const rows = await outboxOf(svc.stores, policyId);
    return alertIds.map((id) => rows.filter((r) => r.alert_id === id).map((r) => r.type));
  };

  it('grouped by agent, gives alert by alert what one policy per agent gives: pending, hysteresis, no data, comparison, manual resolve', async () => {
    const agents = ['a1', 'a2', 'a3'];
    const { event, eventIds, t0 } = await fresh(agents);
    // Minute m of agent i: a few logs (none in some minutes: no data), values spread over 0-119.
    const minutes = 14;
    const points: [number, number, string][] = [];
    for (const [i, agent] of agents.entries()) {
      for (let m = 0; m < minutes; m++) {
        const count = m === 0 ? 3 : (m * 7 + i * 3) % 5;
        for (let k = 0; k < count; k++) points.push([(m * 13 + i * 29 + k * 41) % 120, t0 + m * MINUTE + 1000 + k, agent]);
      }
    }
    await ingestFromAgents(svc.stores, ws, event, points);
    const pairs: { rule: Record<string, unknown>; fleet: string; single: Map<string, string> }[] = [];
    for (const rule of RULE_OPTION_POLICIES) {
      const fleet = await createPolicy(svc, token, { event, group_by: ['agent'], ...rule });
      const single = new Map<string, string>();
      for (const agent of agents) single.set(agent, await createPolicy(svc, token, { event_id: eventIds.get(agent), ...rule }));
      pairs.push({ rule, fleet, single });
    }
    const clock = { now: 0 };
    const evaluator = evaluatorAt(svc.stores, clock);
    for (let m = 0; m < minutes; m++) {
      clock.now = after_(t0 + m * MINUTE);
      await evaluator.evaluateDuePolicies();
      if (m !== 6) continue;
      // Resolved by hand, in both: not raised again for the buckets they covered.
      for (const { fleet, single } of pairs) {
        const open = [...(await alertsOf(svc, token, fleet)), ...(await alertsOf(svc, token, single.get('a2')!))].filter(
          (a) => a.labels.agent === 'a2' && a.status === 'triggered',
        );
        for (const a of open) expect((await svc.request('POST', `/v1.0/alerts/${a.alert_id}/resolve`, { token })).status).to.equal(200);
      }
    }
    let compared = 0;
    const all: AlertJson[] = [];
    for (const { rule, fleet, single } of pairs) {
      const fleetAlerts = await alertsOf(svc, token, fleet);
      for (const agent of agents) {
        const theirs = inOrder(await alertsOf(svc, token, single.get(agent)!));
        const ours = inOrder(fleetAlerts.filter((a) => a.labels.agent === agent));
        expect(ours.map(decided), `${JSON.stringify(rule)} on ${agent}`).to.deep.equal(theirs.map(decided));
        expect(
          await notified(
            fleet,
            ours.map((a) => a.alert_id),
          ),
        ).to.deep.equal(
          await notified(
            single.get(agent)!,
            theirs.map((a) => a.alert_id),
          ),
        );
        compared += ours.length;
        all.push(...ours);
      }
      expect(fleetAlerts.every((a) => a.policy_id === fleet && a.event_id === eventIds.get(a.labels.agent!))).to.equal(true);
    }
    // The fixture exercises the rules: alerts were raised and resolved, by the rules and by hand.
    expect(compared).to.be.greaterThan(8);
    expect(
      all.some((a) => a.value === null && a.count === 0),
      'a no-data alert',
    ).to.equal(true);
    expect(
      all.some((a) => a.comparison_value !== null),
      'a comparison alert',
    ).to.equal(true);
    expect(
      all.some((a) => a.breaching_buckets >= 2 && a.peak_value !== a.value),
      'a pending or hysteresis run',
    ).to.equal(true);
    expect(all.filter((a) => a.status === 'resolved').length, 'resolved alerts').to.be.greaterThan(2);
    // Backtested per group, it finds per agent what the agent's own policy's backtest finds.
    const range = { from: new Date(t0).toISOString(), to: new Date(t0 + minutes * MINUTE).toISOString() };
    for (const { fleet, single } of pairs) {
      const ours = await svc.request('POST', `/v1.0/policies/${fleet}/backtest`, { token, body: range });
      expect(ours.status).to.equal(200);
      for (const agent of agents) {
        const theirs = await svc.request('POST', `/v1.0/policies/${single.get(agent)}/backtest`, { token, body: range });
        const mine = ours.body.alerts
          .filter((a: { labels: { agent: string } }) => a.labels.agent === agent)
          .map(({ labels: _l, ...a }: { labels: object }) => a);
        expect(mine).to.deep.equal(theirs.body.alerts);
      }
    }
  });

  it('a silent agent raises its no_data alert; 24 hours after its last record it is forgotten and the alert resolved', async () => {
    const { event, t0 } = await fresh(['steady', 'quiet']);
    await ingestAt(svc.stores, ws, event, [[5, t0 + 1000]], 'quiet');
    await ingestAt(
      svc.stores,
      ws,
      event,
      Array.from({ length: 28 }, (_, h) => [5, t0 + h * HOUR + 1000] as [number, number]),
      'steady',
    );
    const policyId = await createPolicy(svc, token, {
      event,
      group_by: ['agent'],
      period: 'hour',
      aggregate: 'average',
      condition: 'gt',
      threshold: 100,
      no_data: 'breach',
    });
    const clock = { now: 0 };
    const evaluator = evaluatorAt(svc.stores, clock);
    const quietAlerts = async () => (await alertsOf(svc, token, policyId)).filter((a) => a.labels.agent === 'quiet');
    // Hour 0 closes: both sent, nothing breaches. Hour 1: quiet is silent, and known.
    clock.now = after_(t0, HOUR);
    await evaluator.evaluateDuePolicies();
    expect(await alertsOf(svc, token, policyId)).to.deep.equal([]);
    clock.now = after_(t0 + HOUR, HOUR);
    await evaluator.evaluateDuePolicies();
    const [raised] = await quietAlerts();
    expect(raised).to.include({ status: 'triggered', value: null, count: 0, silent_since: new Date(t0 + HOUR).toISOString() });
    expect(raised!.labels).to.deep.equal({ agent: 'quiet' });
    // Up to hour 23 it stays open (hour 24 ends 24 hours after the last record's hour ended).
    for (let h = 2; h <= 23; h++) {
      clock.now = after_(t0 + h * HOUR, HOUR);
      await evaluator.evaluateDuePolicies();
    }
    expect((await quietAlerts()).map((a) => a.status)).to.deep.equal(['triggered']);
    clock.now = after_(t0 + 24 * HOUR, HOUR);
    await evaluator.evaluateDuePolicies();
    const [forgotten] = await quietAlerts();
    expect(forgotten).to.include({ alert_id: raised!.alert_id, status: 'resolved' });
    expect((await outboxOf(svc.stores, policyId)).map((r) => r.type)).to.deep.equal(['alert.triggered', 'alert.resolved']);
    // Forgotten: its silence pages no more.
    for (let h = 25; h <= 26; h++) {
      clock.now = after_(t0 + h * HOUR, HOUR);
      await evaluator.evaluateDuePolicies();
    }
    expect(await quietAlerts()).to.have.length(1);
    expect((await alertsOf(svc, token, policyId)).filter((a) => a.labels.agent === 'steady')).to.deep.equal([]);
  });

  it('knows a new agent from its first record: the buckets before it are not judged, not even as silent', async () => {
    const { event, t0 } = await fresh(['early']);
    await ingestFromAgents(svc.stores, ws, event, [
      ...[0, 1, 2, 3].map((m) => [1, t0 + m * MINUTE + 1000, 'early'] as const),
      ...[2, 3].map((m) => [1, t0 + m * MINUTE + 1000, 'late'] as const),
    ]);
    const policyId = await createPolicy(svc, token, { event, group_by: ['agent'], aggregate: 'count', condition: 'lt', threshold: 1 });
    const clock = { now: after_(t0) };
    const evaluator = evaluatorAt(svc.stores, clock);
    await evaluator.evaluateDuePolicies();
    // Minutes 1-3 at once: "late" sends from minute 2 on; minute 1 is before it was known.
    clock.now = after_(t0 + 3 * MINUTE);
    await evaluator.evaluateDuePolicies();
    expect(await alertsOf(svc, token, policyId)).to.deep.equal([]);
    // Then it stops: minute 4 is its silence, and raises.
    clock.now = after_(t0 + 4 * MINUTE);
    await evaluator.evaluateDuePolicies();
    expect((await alertsOf(svc, token, policyId)).map((a) => [a.labels.agent, a.bucket_start])).to.have.deep.members([
      ['early', new Date(t0 + 4 * MINUTE).toISOString()],
      ['late', new Date(t0 + 4 * MINUTE).toISOString()],
    ]);
  });

  it('reads the groups in one ClickHouse query per bucket range, for 2 agents as for 60', async () => {
    const reads: number[] = [];
    for (const size of [2, 60]) {
      const agents = Array.from({ length: size }, (_, i) => `host-${String(i).padStart(2, '0')}`);
      const { event, t0 } = await fresh(agents);
      await ingestFromAgents(
        svc.stores,
        ws,
        event,
        agents.flatMap((agent) => [0, 1, 2].map((m) => [1, t0 + m * MINUTE + 1000, agent] as const)),
      );
      const policyId = await createPolicy(svc, token, { event, group_by: ['agent'], aggregate: 'count', condition: 'gte', threshold: 1 });
      const counting = countingClickHouse(svc.stores.clickhouse);
      const clock = { now: after_(t0) };
      const evaluator = new PolicyEvaluator({ postgres: svc.stores.postgres, clickhouse: counting.store, graceMs: GRACE_MS, now: () => clock.now });
      await evaluator.evaluateDuePolicies();
      // Two minutes closed at once: one range.
      clock.now = after_(t0 + 2 * MINUTE);
      counting.reset();
      await evaluator.evaluateDuePolicies();
      reads.push(counting.queries.filter(isFleetRead).length);
      expect((await alertsOf(svc, token, policyId)).filter((a) => a.status === 'triggered')).to.have.length(size);
      counting.reset();
      const res = await svc.request('POST', `/v1.0/policies/${policyId}/evaluate`, { token, body: { at: new Date(t0 + 3 * MINUTE).toISOString() } });
      expect(res.status).to.equal(200);
      expect(res.body.groups).to.have.length(size);
    }
    expect(reads).to.deep.equal([1, 1]);
  });

  it('keeps at most one open alert per group when evaluations run at once', async () => {
    const agents = ['c1', 'c2', 'c3', 'c4'];
    const { event, t0 } = await fresh(agents);
    for (const agent of agents)
      await ingestAt(
        svc.stores,
        ws,
        event,
        [
          [50, t0 + 1000],
          [50, t0 + MINUTE + 1000],
        ],
        agent,
      );
    const policyId = await createPolicy(svc, token, { event, group_by: ['agent'], aggregate: 'max', condition: 'gt', threshold: 10 });
    const clock = { now: after_(t0 + MINUTE) };
    const evaluators = Array.from({ length: 4 }, () => evaluatorAt(svc.stores, clock));
    const results = await Promise.allSettled([
      ...evaluators.map((e) => e.evaluateDuePolicies()),
      ...evaluators.map((e) => e.evaluateLastClosedBucket(ws, policyId, clock.now)),
    ]);
    expect(results.filter((r) => r.status === 'rejected')).to.deep.equal([]);
    const open = (await alertsOf(svc, token, policyId)).filter((a) => a.status === 'triggered' || a.status === 'acknowledged');
    expect(open.map((a) => a.labels.agent).sort()).to.deep.equal(agents);
    expect((await outboxOf(svc.stores, policyId)).filter((r) => r.type === 'alert.triggered')).to.have.length(agents.length);
  });

  it('is evaluated as records land: a new agent breaching raises its own alert without waiting for the cycle', async () => {
    const { event } = await fresh(['old-agent']);
    const policyId = await createPolicy(svc, token, { event, group_by: ['agent'], aggregate: 'max', condition: 'gt', threshold: 100 });
    const sent = await svc.request('POST', '/v1.0/logs', {
      token,
      body: [
        { agent: 'new-agent', event, value: 250 },
        { agent: 'old-agent', event, value: 5 },
      ],
    });
    expect(sent.status).to.equal(200);
    const raised = await waitFor(
      "the new agent's alert",
      async () => {
        const alerts = await alertsOf(svc, token, policyId);
        return alerts.length > 0 ? alerts : null;
      },
      30_000,
    );
    expect(raised.map((a) => [a.labels, a.value, a.status])).to.deep.equal([[{ agent: 'new-agent' }, 250, 'triggered']]);
  });

  it('judges day buckets in its timezone, from hour rows (Europe/Berlin) or minute rows (Asia/Kolkata), one query each', async () => {
    for (const timezone of ['Europe/Berlin', 'Asia/Kolkata']) {
      const { event, t0 } = await fresh(['d1', 'd2']);
      const day = localDayOf(timezone, t0);
      // d1: three records in the day (its first and last minutes among them), d2 one; one record of the next day each.
      await ingestFromAgents(svc.stores, ws, event, [
        [1, day.start + 1000, 'd1'],
        [2, t0, 'd1'],
        [3, day.end - 1000, 'd1'],
        [9, t0, 'd2'],
        [100, day.end + 1000, 'd1'],
        [100, day.end + 1000, 'd2'],
      ]);
      const policyId = await createPolicy(svc, token, { event, group_by: ['agent'], period: 'day', timezone, aggregate: 'sum', condition: 'gt', threshold: 5 });
      const counting = countingClickHouse(svc.stores.clickhouse);
      const evaluator = new PolicyEvaluator({
        postgres: svc.stores.postgres,
        clickhouse: counting.store,
        graceMs: GRACE_MS,
        now: () => day.end + GRACE_MS + 1,
      });
      const result = await evaluator.evaluateLastClosedBucket(ws, policyId);
      expect(counting.queries.filter(isFleetRead)).to.have.length(1);
      if (result.kind !== 'fleet') throw new Error('a fleet answer');
      expect(result.bucket).to.deep.equal(day);
      expect(result.groups.map((g) => [g.labels.agent, g.stats.count, g.value, g.breached])).to.deep.equal([
        ['d1', 3, 6, true],
        ['d2', 1, 9, true],
      ]);
    }
  });

  it('judges at most POLICY_MAX_GROUPS groups a bucket, the largest by count, and counts the rest', async () => {
    const agents = ['g1', 'g2', 'g3', 'g4', 'g5'];
    const { event, t0 } = await fresh(agents);
    // g1 sends 5 records, g2 4, … g5 1.
    await ingestFromAgents(
      svc.stores,
      ws,
      event,
      agents.flatMap((agent, i) => Array.from({ length: 5 - i }, (_, k) => [1, t0 + 1000 + k, agent] as const)),
    );
    const policyId = await createPolicy(svc, token, { event, group_by: ['agent'], aggregate: 'count', condition: 'gte', threshold: 1 });
    const clock = { now: after_(t0) };
    const evaluator = new PolicyEvaluator({
      postgres: svc.stores.postgres,
      clickhouse: svc.stores.clickhouse,
      graceMs: GRACE_MS,
      now: () => clock.now,
      maxGroups: 3,
    });
    const result = await evaluator.evaluateLastClosedBucket(ws, policyId);
    if (result.kind !== 'fleet') throw new Error('a fleet answer');
    expect(result.groups.map((g) => g.labels.agent)).to.deep.equal(['g1', 'g2', 'g3']);
    expect(result.groupsTruncated).to.equal(2);
    const report = await evaluator.evaluateDuePolicies();
    expect(report.groupsTruncated).to.be.at.least(2);
    expect((await alertsOf(svc, token, policyId)).map((a) => a.labels.agent).sort()).to.deep.equal(['g1', 'g2', 'g3']);
  });

  it('evaluate-now answers every group with records or an open alert, largest first; ungrouped is one group with {} labels', async () => {
    const { event, eventIds, t0 } = await fresh(['big', 'small']);
    await ingestAt(
      svc.stores,
      ws,
      event,
      [
        [1, t0 + 1000],
        [2, t0 + 2000],
        [3, t0 + 3000],
      ],
      'big',
    );
    await ingestAt(svc.stores, ws, event, [[7, t0 + 1000]], 'small');
    const grouped = await createPolicy(svc, token, { event, group_by: ['agent'], aggregate: 'sum', condition: 'gt', threshold: 5 });
    const at = new Date(t0 + MINUTE + GRACE_MS).toISOString();
    const res = await svc.request('POST', `/v1.0/policies/${grouped}/evaluate`, { token, body: { at } });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ policy_id: grouped, bucket_start: new Date(t0).toISOString(), groups_truncated: 0 });
    expect(
      res.body.groups.map((g: { labels: object; count: number; value: number; breached: boolean }) => [g.labels, g.count, g.value, g.breached]),
    ).to.deep.equal([
      [{ agent: 'big' }, 3, 6, true],
      [{ agent: 'small' }, 1, 7, true],
    ]);
    expect(res.body.groups[0].alert).to.include({ status: 'triggered', event_id: eventIds.get('big'), fingerprint: res.body.groups[0].alert.fingerprint });
    const whole = await createPolicy(svc, token, { event, aggregate: 'sum', condition: 'gt', threshold: 100 });
    const one = await svc.request('POST', `/v1.0/policies/${whole}/evaluate`, { token, body: { at } });
    expect(one.body.groups).to.have.length(1);
    expect(one.body.groups[0]).to.include({ count: 4, value: 13, min: 1, max: 7, breached: false, alert: null });
    expect(one.body.groups[0].labels).to.deep.equal({});
  });
});
