// Backtest against the live worker: the same data, evaluated by the worker bucket by bucket
// and backtested over the stored rollups, gives the same alerts, for rules that use every
// option. Nothing a backtest does is stored or sent.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';
import { alertsOf, baseMinute, createEvent, createPolicy, evaluatorAt, GRACE_MS, IDLE_WORKER_ENV, ingestAt, MINUTE, outboxOf } from './helpers.js';

const MINUTES = 40;

/** A seeded generator, so the data is the same on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

/** Logs over MINUTES minutes: calm and busy phases, a few silent minutes, noise everywhere. */
function series(t0: number): [number, number][] {
  const next = random(16);
  const points: [number, number][] = [];
  for (let m = 0; m < MINUTES; m++) {
    if (m % 9 === 4 || m === 31 || m === 32) continue; // silent minutes
    const busy = (m >= 6 && m < 14) || (m >= 22 && m < 30);
    const count = 1 + Math.floor(next() * (busy ? 8 : 4));
    for (let i = 0; i < count; i++) points.push([Math.round((busy ? 75 : 40) + next() * 30), t0 + m * MINUTE + 1000 + Math.floor(next() * 50_000)]);
  }
  return points;
}

describe('backtest', function () {
  this.timeout(180_000);
  let svc: TestService;
  let token: string;
  const ws = 'backtest-ws';

  before(async () => {
    svc = await startTestService({ env: IDLE_WORKER_ENV });
    token = await svc.tokenFor(ws);
  });
  after(() => svc.close());

  const rules = {
    'max with hysteresis and a pending run': { aggregate: 'max', condition: 'gt', threshold: 95, recovery_threshold: 80, pending_buckets: 2 },
    'count against the minute before': { aggregate: 'count', condition: 'gt', threshold: 50, compare_to: 'previous_bucket', min_count: 2 },
    'average with no data breaching': { aggregate: 'average', condition: 'gt', threshold: 70, no_data: 'breach', pending_buckets: 3 },
    'p95 plain': { aggregate: 'p95_est', condition: 'gte', threshold: 90 },
    'sum low for two minutes': { aggregate: 'sum', condition: 'lt', threshold: 120, pending_buckets: 2 },
    'min falling with hysteresis': { aggregate: 'min', condition: 'lte', threshold: 45, recovery_threshold: 60, no_data: 'ok' },
  } as const;

  it('finds exactly the alerts the worker raises when the same data is evaluated live, bucket by bucket', async () => {
    const t0 = baseMinute() + 6 * 3_600_000;
    const eventId = await createEvent(svc, token, 'replayed');
    await ingestAt(svc.stores, ws, 'replayed', series(t0));
    const ids: Record<string, string> = {};
    for (const [title, rule] of Object.entries(rules)) ids[title] = await createPolicy(svc, token, { event_id: eventId, title, ...rule });

    // Live: a worker clock just past each minute's close, from t0 on (a new policy starts with the minute that just closed).
    const clock = { now: 0 };
    const evaluator = evaluatorAt(svc.stores, clock);
    for (let m = 0; m < MINUTES; m++) {
      clock.now = t0 + (m + 1) * MINUTE + GRACE_MS + 1;
      await evaluator.evaluateDuePolicies();
    }

    let alertsSeen = 0;
    for (const [title, policyId] of Object.entries(ids)) {
      const outbox = await outboxOf(svc.stores, policyId);
      const triggeredBucket = new Map(outbox.filter((o) => o.type === 'alert.triggered').map((o) => [o.alert_id, o.alert.bucket_start]));
      // A bucket resolves an alert in the cycle just past its close.
      const resolvedBucket = (resolvedAt: string | null) =>
        resolvedAt === null ? null : new Date(Date.parse(resolvedAt) - MINUTE - GRACE_MS - 1).toISOString();
      const live = (await alertsOf(svc, token, policyId)).reverse().map((a) => ({
        first_breach_bucket_start: a.breaching_since,
        triggered_bucket_start: triggeredBucket.get(a.alert_id),
        resolved_bucket_start: resolvedBucket(a.resolved_at),
        peak_value: a.peak_value,
        breaching_buckets: a.breaching_buckets,
      }));

      const range = { from: new Date(t0).toISOString(), to: new Date(t0 + MINUTES * MINUTE).toISOString() };
      const stored = await svc.request('POST', `/v1.0/policies/${policyId}/backtest`, { token, body: range });
      expect(stored.status, stored.text).to.equal(200);
      expect(stored.body).to.include({ ...range, buckets_evaluated: MINUTES });
      expect(stored.body.alerts, title).to.deep.equal(live);
      const draft = await svc.request('POST', '/v1.0/policies/backtest', {
        token,
        body: { policy: { event_id: eventId, title, severity: 'info', period: 'minute', ...rules[title as keyof typeof rules] }, ...range },
      });
      expect(draft.body, title).to.deep.equal(stored.body);
      alertsSeen += live.length;
    }
    // The data exercises the rules: most of them raise, some more than once.
    expect(alertsSeen).to.be.at.least(8);
  });

  it('stores and sends nothing, and backtests a disabled policy too', async () => {
    const eventId = await createEvent(svc, token, 'quiet');
    const policyId = await createPolicy(svc, token, { event_id: eventId, aggregate: 'count', condition: 'lt', threshold: 1, enabled: false });
    const res = await svc.request('POST', `/v1.0/policies/${policyId}/backtest`, { token, body: { from: new Date(Date.now() - 3_600_000).toISOString() } });
    expect(res.status).to.equal(200);
    // An event with no logs breaches count lt 1 from the first bucket on: one alert, still open.
    expect(res.body.alerts).to.have.length(1);
    expect(res.body.alerts[0]).to.include({ resolved_bucket_start: null, peak_value: 0 });
    expect(res.body.alerts[0].breaching_buckets).to.equal(res.body.buckets_evaluated);
    expect(await alertsOf(svc, token, policyId)).to.deep.equal([]);
    expect(await outboxOf(svc.stores, policyId)).to.deep.equal([]);
    const [progress] = await svc.stores.postgres.query<{ evaluated_until: Date | null; breach_run: number }>(
      'SELECT evaluated_until, breach_run FROM policies WHERE policy_id = $1',
      [policyId],
    );
    expect(progress).to.deep.equal({ evaluated_until: null, breach_run: 0 });
  });
});
