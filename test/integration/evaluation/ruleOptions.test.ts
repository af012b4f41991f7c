// The rule options of a policy, evaluated by the worker on controlled data: pending runs,
// hysteresis, no_data, compare_to (with DST days for previous_1d and previous_7d) and
// min_count, early firing under them, the manual-resolve rule, and a restart mid-run.
import { expect } from 'chai';
import { localDayOf } from '../../../src/time/localDay.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { alertsOf, baseMinute, createEvent, createPolicy, evaluatorAt, GRACE_MS, IDLE_WORKER_ENV, ingestAt, MINUTE, outboxOf } from './helpers.js';

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** The latest change of Europe/Berlin's clocks (last Sunday of March or October, 01:00 UTC) at least 3 days ago. */
function latestBerlinClockChange(): { at: number; spring: boolean } {
  const lastSunday = (year: number, month: number) => {
    const last = new Date(Date.UTC(year, month + 1, 0, 1));
    return last.getTime() - last.getUTCDay() * DAY;
  };
  const year = new Date().getUTCFullYear();
  const changes = [year - 1, year].flatMap((y) => [
    { at: lastSunday(y, 2), spring: true },
    { at: lastSunday(y, 9), spring: false },
  ]);
  return changes.filter((c) => c.at <= Date.now() - 3 * DAY).sort((a, b) => b.at - a.at)[0]!;
}

describe('evaluation rule options', function () {
  this.timeout(180_000);
  let svc: TestService;
  let token: string;
  const ws = 'rule-options-ws';
  let n = 0;
  /** Each test gets its own event and its own minutes, 40 minutes apart. */
  const fresh = async (timezone = 'UTC') => {
    n += 1;
    const event = `options-${n}`;
    return { event, eventId: await createEvent(svc, token, event, timezone), t0: baseMinute() + 3 * HOUR + n * 40 * MINUTE };
  };
  const after_ = (bucketStart: number, length = MINUTE) => bucketStart + length + GRACE_MS + 1;
  const logs = (event: string, points: readonly (readonly [number, number])[]) => ingestAt(svc.stores, ws, event, points);
  /** count logs of value `value` in the minute starting at `minute`. */
  const burst = (minute: number, count: number, value = 1) => Array.from({ length: count }, (_, i) => [value, minute + 1000 + i] as const);

  before(async () => {
    svc = await startTestService({ env: IDLE_WORKER_ENV });
    token = await svc.tokenFor(ws);
  });
  after(() => svc.close());

  /** Steps a worker clock through `minutes` minutes from t0, each evaluated once closed (a new policy starts with minute t0). */
  async function stepThrough(t0: number, minutes: number) {
    const clock = { now: 0 };
    const evaluator = evaluatorAt(svc.stores, clock);
    for (let m = 0; m < minutes; m++) {
      clock.now = after_(t0 + m * MINUTE);
      await evaluator.evaluateDuePolicies();
    }
    return clock;
  }

  it('pending_buckets: breaches shorter than the run raise nothing; a run raises once, at its last bucket', async () => {
    const { event, eventId, t0 } = await fresh();
    // Breaching minutes (average 50): 0–1, then 3–6; the others are clear (average 1).
    const breaching = new Set([0, 1, 3, 4, 5, 6]);
    await logs(
      event,
      [...Array(8).keys()].flatMap((m) => burst(t0 + m * MINUTE, 1, breaching.has(m) ? 50 + m : 1)),
    );
    const policyId = await createPolicy(svc, token, { event_id: eventId, aggregate: 'average', condition: 'gt', threshold: 10, pending_buckets: 3 });
    const clock = { now: 0 };
    const evaluator = evaluatorAt(svc.stores, clock);
    let raisedAt = 0;
    for (let m = 0; m < 8; m++) {
      clock.now = after_(t0 + m * MINUTE);
      await evaluator.evaluateDuePolicies();
      if (!raisedAt && (await alertsOf(svc, token, policyId)).length > 0) raisedAt = clock.now;
    }
    const alerts = await alertsOf(svc, token, policyId);
    expect(alerts).to.have.length(1);
    expect(alerts[0]).to.include({
      status: 'resolved',
      breaching_since: new Date(t0 + 3 * MINUTE).toISOString(),
      breaching_buckets: 4,
      peak_value: 56,
      triggered_at: new Date(after_(t0 + 5 * MINUTE)).toISOString(),
    });
    expect(raisedAt).to.equal(after_(t0 + 5 * MINUTE));
    const outbox = await outboxOf(svc.stores, policyId);
    expect(outbox.map((o) => [o.type, o.alert.bucket_start])).to.deep.equal([
      ['alert.triggered', new Date(t0 + 5 * MINUTE).toISOString()],
      ['alert.resolved', new Date(t0 + 6 * MINUTE).toISOString()],
    ]);
    expect(outbox[0]!.alert).to.include({ breaching_buckets: 3, breaching_since: new Date(t0 + 3 * MINUTE).toISOString(), value: 55 });
  });

  it('keeps a pending run across a restart of the service: neither lost nor counted twice', async () => {
    const { event, eventId, t0 } = await fresh();
    await logs(
      event,
      [...Array(4).keys()].flatMap((m) => burst(t0 + m * MINUTE, 1, 50)),
    );
    // average: no early breach, so each step below is one closed minute.
    const policyId = await createPolicy(svc, token, { event_id: eventId, aggregate: 'average', condition: 'gt', threshold: 10, pending_buckets: 3 });
    await stepThrough(t0, 2);
    expect(await alertsOf(svc, token, policyId)).to.deep.equal([]);

    await svc.close();
    svc = await startTestService({ env: IDLE_WORKER_ENV, storeOptions: svc.storeOptions });
    const clock = { now: after_(t0 + 2 * MINUTE) };
    await evaluatorAt(svc.stores, clock).evaluateDuePolicies();
    await evaluatorAt(svc.stores, clock).evaluateDuePolicies();
    const alerts = await alertsOf(svc, token, policyId);
    expect(alerts).to.have.length(1);
    expect(alerts[0]).to.include({ status: 'triggered', breaching_buckets: 3, breaching_since: new Date(t0).toISOString() });
    expect((await outboxOf(svc.stores, policyId)).map((o) => o.type)).to.deep.equal(['alert.triggered']);
  });

  it('fires early on an open bucket only where it completes a pending run for good', async () => {
    const { event, eventId, t0 } = await fresh();
    // count gt 2: minute 0 breaches (3 logs); minute 1 has 3 logs early on, minute 2 has 3 logs.
    await logs(event, [...burst(t0, 3), ...burst(t0 + MINUTE, 3), ...burst(t0 + 2 * MINUTE, 3)]);
    const runOf2 = await createPolicy(svc, token, { event_id: eventId, aggregate: 'count', condition: 'gt', threshold: 2, pending_buckets: 2 });
    const runOf3 = await createPolicy(svc, token, { event_id: eventId, aggregate: 'count', condition: 'gt', threshold: 2, pending_buckets: 3 });
    // Minute 0 closed is a run of 1; minute 1, open, already breaches for good: it completes a run of 2.
    const clock = await stepThrough(t0, 1);
    expect((await alertsOf(svc, token, runOf2)).map((a) => a.bucket_start)).to.deep.equal([new Date(t0 + MINUTE).toISOString()]);
    expect(await alertsOf(svc, token, runOf3)).to.deep.equal([]);
    clock.now = after_(t0 + MINUTE);
    await evaluatorAt(svc.stores, clock).evaluateDuePolicies();
    clock.now = after_(t0 + 2 * MINUTE);
    await evaluatorAt(svc.stores, clock).evaluateDuePolicies();
    const [two] = await alertsOf(svc, token, runOf2);
    expect(two).to.include({ breaching_buckets: 3, status: 'triggered' });
    expect((await outboxOf(svc.stores, runOf2)).map((o) => o.type)).to.deep.equal(['alert.triggered']);
    expect((await alertsOf(svc, token, runOf3)).map((a) => a.bucket_start)).to.deep.equal([new Date(t0 + 2 * MINUTE).toISOString()]);
  });

  it('hysteresis: between the two thresholds the alert stays open and is updated; past the recovery threshold it resolves', async () => {
    const { event, eventId, t0 } = await fresh();
    // average per minute: 95, 85, 88, 80, 95.
    const values = [95, 85, 88, 80, 95];
    await logs(
      event,
      values.flatMap((v, m) => burst(t0 + m * MINUTE, 1, v)),
    );
    const policyId = await createPolicy(svc, token, { event_id: eventId, aggregate: 'average', condition: 'gt', threshold: 90, recovery_threshold: 80 });
    const plain = await createPolicy(svc, token, { event_id: eventId, aggregate: 'average', condition: 'gt', threshold: 90 });
    const clock = await stepThrough(t0, 3);
    let [alert] = await alertsOf(svc, token, policyId);
    expect(alert).to.include({ status: 'triggered', value: 88, recovery_threshold: 80, breaching_buckets: 3, peak_value: 95 });
    expect((await alertsOf(svc, token, plain))[0]).to.include({ status: 'resolved', value: 95 });
    clock.now = after_(t0 + 3 * MINUTE);
    await evaluatorAt(svc.stores, clock).evaluateDuePolicies();
    [alert] = await alertsOf(svc, token, policyId);
    expect(alert).to.include({ status: 'resolved', value: 88 });
    clock.now = after_(t0 + 4 * MINUTE);
    await evaluatorAt(svc.stores, clock).evaluateDuePolicies();
    expect((await outboxOf(svc.stores, policyId)).map((o) => o.type)).to.deep.equal(['alert.triggered', 'alert.resolved', 'alert.triggered']);
  });

  it('no_data: an empty bucket breaches, clears or gives no verdict for average, min, max, p95_est and p99_est', async () => {
    const { event, eventId, t0 } = await fresh();
    const silentEvent = await fresh();
    await logs(event, burst(t0, 2, 50)); // minute 0 breaches every rule below; minute 1 is empty
    const aggregates = ['average', 'min', 'max', 'p95_est', 'p99_est'] as const;
    const modes = ['breach', 'ok', 'no_verdict'] as const;
    const ids = new Map<string, string>();
    for (const aggregate of aggregates) {
      for (const mode of modes) {
        ids.set(`${aggregate}/${mode}`, await createPolicy(svc, token, { event_id: eventId, aggregate, condition: 'gt', threshold: 10, no_data: mode }));
      }
      // An event that never reported: no_data breach raises, with nothing to show but the silence.
      ids.set(
        `${aggregate}/silent`,
        await createPolicy(svc, token, { event_id: silentEvent.eventId, aggregate, condition: 'gt', threshold: 10, no_data: 'breach' }),
      );
    }
    await stepThrough(t0, 2);
    for (const aggregate of aggregates) {
      const [breach] = await alertsOf(svc, token, ids.get(`${aggregate}/breach`)!);
      expect(breach, aggregate).to.include({ status: 'triggered', value: null, count: 0, min: null, max: null, breaching_buckets: 2 });
      expect(breach!.silent_since, aggregate).to.equal(new Date(t0 + MINUTE).toISOString());
      const [ok] = await alertsOf(svc, token, ids.get(`${aggregate}/ok`)!);
      expect(ok, aggregate).to.include({ status: 'resolved', value: 50, count: 2 });
      const [noVerdict] = await alertsOf(svc, token, ids.get(`${aggregate}/no_verdict`)!);
      expect(noVerdict, aggregate).to.include({ status: 'triggered', value: 50, count: 2, silent_since: null });
      const [silent] = await alertsOf(svc, token, ids.get(`${aggregate}/silent`)!);
      expect(silent, aggregate).to.include({ status: 'triggered', value: null, count: 0, breaching_buckets: 2, silent_since: new Date(t0).toISOString() });
    }
  });

  it('compare_to previous_bucket: the percentage change, with both aggregates in the alert; min_count and an empty or zero base give no verdict', async () => {
    const { event, eventId, t0 } = await fresh();
    // count per minute: 10, 16 (+60%), 4 (−75%), 0 (below min_count), 4 (over an empty minute), 1, 4 (+300% of 1 log).
    const counts = [10, 16, 4, 0, 4, 1, 4];
    await logs(
      event,
      counts.flatMap((c, m) => burst(t0 + m * MINUTE, c)),
    );
    const pct = await createPolicy(svc, token, {
      event_id: eventId,
      aggregate: 'count',
      condition: 'gt',
      threshold: 50,
      compare_to: 'previous_bucket',
      min_count: 2,
    });
    const clock = await stepThrough(t0, 2);
    const [alert] = await alertsOf(svc, token, pct);
    expect(alert).to.include({
      status: 'triggered',
      compare_to: 'previous_bucket',
      value: 60,
      aggregate_value: 16,
      comparison_value: 10,
      comparison_bucket_start: new Date(t0).toISOString(),
    });
    for (let m = 2; m < counts.length; m++) {
      clock.now = after_(t0 + m * MINUTE);
      await evaluatorAt(svc.stores, clock).evaluateDuePolicies();
    }
    // Minute 2 resolves it; the others give no verdict.
    const alerts = await alertsOf(svc, token, pct);
    expect(alerts).to.have.length(1);
    expect(alerts[0]).to.include({ status: 'resolved', value: 60 });

    const zero = await fresh();
    await logs(zero.event, [...burst(zero.t0, 3, 0), ...burst(zero.t0 + MINUTE, 3, 5)]);
    const zeroBase = await createPolicy(svc, token, {
      event_id: zero.eventId,
      aggregate: 'sum',
      condition: 'gt',
      threshold: 50,
      compare_to: 'previous_bucket',
    });
    await stepThrough(zero.t0, 2);
    expect(await alertsOf(svc, token, zeroBase)).to.deep.equal([]);
    const check = await svc.request('POST', `/v1.0/policies/${zeroBase}/evaluate`, { token, body: { at: new Date(zero.t0 + 2 * MINUTE).toISOString() } });
    expect(check.body).to.include({ value: null, count: 3, breached: false, alert: null });
  });

  it('compare_to fires early on an open bucket only once its change is final', async () => {
    const { event, eventId, t0 } = await fresh();
    await logs(event, [...burst(t0, 4), ...burst(t0 + MINUTE, 7)]);
    const policyId = await createPolicy(svc, token, { event_id: eventId, aggregate: 'count', condition: 'gt', threshold: 50, compare_to: 'previous_bucket' });
    const average = await createPolicy(svc, token, { event_id: eventId, aggregate: 'average', condition: 'gt', threshold: -50, compare_to: 'previous_bucket' });
    // Minute 0 closed; minute 1 open with its 7 logs already in.
    await stepThrough(t0, 1);
    // 7 logs against 4 is +75% already, and a count only grows: final. An average can still move.
    expect((await alertsOf(svc, token, policyId)).map((a) => [a.bucket_start, a.value])).to.deep.equal([[new Date(t0 + MINUTE).toISOString(), 75]]);
    expect(await alertsOf(svc, token, average)).to.deep.equal([]);
  });

  it('does not raise again for the bucket of an alert resolved by hand, even while that bucket still breaches', async () => {
    const { event, eventId, t0 } = await fresh();
    await logs(event, [...burst(t0, 3), ...burst(t0 + 3 * MINUTE, 3)]);
    const policyId = await createPolicy(svc, token, { event_id: eventId, aggregate: 'count', condition: 'gt', threshold: 1 });
    const clock = { now: t0 - 30_000 };
    const evaluator = evaluatorAt(svc.stores, clock);
    await evaluator.evaluateDuePolicies();
    clock.now = t0 + 20_000; // minute 0 open, already breaching for good: raised early
    await evaluator.evaluateDuePolicies();
    const [raised] = await alertsOf(svc, token, policyId);
    expect((await svc.request('POST', `/v1.0/alerts/${raised!.alert_id}/resolve`, { token })).status).to.equal(200);
    clock.now += 1000; // the next cycle, the minute still open and breaching
    await evaluator.evaluateDuePolicies();
    clock.now = after_(t0); // and closed
    await evaluator.evaluateDuePolicies();
    clock.now = after_(t0 + MINUTE);
    await evaluator.evaluateDuePolicies();
    expect((await alertsOf(svc, token, policyId)).map((a) => a.status)).to.deep.equal(['resolved']);
    clock.now = after_(t0 + 3 * MINUTE); // a later breaching minute raises a new alert
    await evaluator.evaluateDuePolicies();
    const alerts = await alertsOf(svc, token, policyId);
    expect(alerts.map((a) => [a.status, a.bucket_start])).to.deep.equal([
      ['triggered', new Date(t0 + 3 * MINUTE).toISOString()],
      ['resolved', new Date(t0).toISOString()],
    ]);
    // (The resolve is stamped by the real clock, the evaluations by the test's: compare without order.)
    expect((await outboxOf(svc.stores, policyId)).map((o) => o.type).sort()).to.deep.equal(['alert.resolved', 'alert.triggered', 'alert.triggered']);
  });

  describe('comparison across a change of the clocks (Europe/Berlin)', () => {
    const change = latestBerlinClockChange();

    for (const [compareTo, days] of [
      ['previous_1d', 1],
      ['previous_7d', 7],
    ] as const) {
      it(`${compareTo} compares an hour of the day of the change with the same local hour ${days} local day(s) before: ${days * 24} ∓ 1 hours earlier`, async () => {
        const name = `berlin-hourly-${compareTo}`;
        const eventId = await createEvent(svc, token, name, 'Europe/Berlin');
        // The hour of 12:00 local on the day of the change, and 12:00 local `days` days before.
        const hour = localDayOf('Europe/Berlin', change.at).start + 12 * HOUR + (change.spring ? -HOUR : HOUR);
        const sameLocalHour = hour - days * DAY + (change.spring ? HOUR : -HOUR);
        // A decoy where a zone-blind "days × 24 hours earlier" would look.
        const naive = hour - days * DAY;
        await logs(name, [...burst(hour, 16), ...burst(sameLocalHour, 10), ...burst(naive, 100)]);
        const policyId = await createPolicy(svc, token, {
          event_id: eventId,
          period: 'hour',
          aggregate: 'count',
          condition: 'gt',
          threshold: 50,
          compare_to: compareTo,
        });
        await evaluatorAt(svc.stores, { now: after_(hour, HOUR) }).evaluateDuePolicies();
        const [alert] = await alertsOf(svc, token, policyId);
        expect(alert).to.include({ value: 60, aggregate_value: 16, comparison_value: 10, comparison_bucket_start: new Date(sameLocalHour).toISOString() });
      });
    }

    it('previous_7d compares the 23- or 25-hour day of the change with the 24-hour local day a week before', async () => {
      const eventId = await createEvent(svc, token, 'berlin-change-day', 'Europe/Berlin');
      const changeDay = localDayOf('Europe/Berlin', change.at);
      expect(changeDay.end - changeDay.start).to.equal(change.spring ? 23 * HOUR : 25 * HOUR);
      const weekBefore = localDayOf('Europe/Berlin', changeDay.start + 12 * HOUR - 7 * DAY);
      expect(weekBefore.end - weekBefore.start).to.equal(24 * HOUR);
      // Logs in the last local hour of the change day count for it (23 or 25 hours after its start); the decoys lie in the days either side of the week-before day.
      await logs('berlin-change-day', [
        ...burst(changeDay.end - HOUR, 30),
        ...burst(weekBefore.start, 20),
        ...burst(weekBefore.start - HOUR, 100),
        ...burst(weekBefore.end, 100),
      ]);
      const policyId = await createPolicy(svc, token, {
        event_id: eventId,
        period: 'day',
        aggregate: 'count',
        condition: 'gte',
        threshold: 50,
        compare_to: 'previous_7d',
      });
      await evaluatorAt(svc.stores, { now: after_(changeDay.start, changeDay.end - changeDay.start) }).evaluateDuePolicies();
      const [alert] = await alertsOf(svc, token, policyId);
      expect(alert).to.include({
        value: 50,
        aggregate_value: 30,
        comparison_value: 20,
        bucket_start: new Date(changeDay.start).toISOString(),
        comparison_bucket_start: new Date(weekBefore.start).toISOString(),
      });
    });

    it('previous_7d compares a local day with the local day a week before, whatever their lengths', async () => {
      const eventId = await createEvent(svc, token, 'berlin-daily', 'Europe/Berlin');
      const dayAfter = localDayOf('Europe/Berlin', change.at + DAY);
      const weekBefore = localDayOf('Europe/Berlin', dayAfter.start + 12 * HOUR - 7 * DAY);
      // Decoys in the local days either side: 7 × 24 hours back from the day's start lands in one of them, or on no day's start.
      const dayBefore = localDayOf('Europe/Berlin', weekBefore.start - HOUR);
      const nextDay = localDayOf('Europe/Berlin', weekBefore.end + HOUR);
      await logs('berlin-daily', [
        ...burst(dayAfter.start + HOUR, 20),
        ...burst(weekBefore.start + HOUR, 10),
        ...burst(dayBefore.start + HOUR, 100),
        ...burst(nextDay.start + HOUR, 100),
      ]);
      const policyId = await createPolicy(svc, token, {
        event_id: eventId,
        period: 'day',
        aggregate: 'count',
        condition: 'gte',
        threshold: 100,
        compare_to: 'previous_7d',
      });
      await evaluatorAt(svc.stores, { now: after_(dayAfter.start, dayAfter.end - dayAfter.start) }).evaluateDuePolicies();
      const [alert] = await alertsOf(svc, token, policyId);
      expect(alert).to.include({ value: 100, aggregate_value: 20, comparison_value: 10, comparison_bucket_start: new Date(weekBefore.start).toISOString() });
    });
  });
});
