// A policy and its open alert written before the rule options existed (the schema up to
// Postgres migration 0005) read and evaluate as the plain threshold rule once the later
// migrations have run: the defaults change nothing for existing policies.
import { expect } from 'chai';
import { newId } from '../../../src/ids.js';
import { migrateClickHouse, migratePostgres } from '../../../src/stores/migrations.js';
import { openStores } from '../../../src/stores/index.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { freshStoreOptions } from '../../helpers/stores.js';
import { alertsOf, baseMinute, evaluatorAt, GRACE_MS, IDLE_WORKER_ENV, ingestAt, MINUTE, outboxOf } from '../evaluation/helpers.js';

const LAST_BEFORE_RULE_OPTIONS = '0005';

describe('policies from before the rule options', function () {
  this.timeout(120_000);
  let svc: TestService | null = null;
  after(() => svc?.close());

  it('read with the defaults, and keep evaluating as the plain threshold rule', async () => {
    const ws = 'pre-options-ws';
    const t0 = baseMinute();
    const [eventId, policyId, alertId] = [newId(), newId(), newId()];
    const options = await freshStoreOptions({ unmigrated: true });

    const old = await openStores({ ...options, migrate: false });
    try {
      await migratePostgres(old.postgres, LAST_BEFORE_RULE_OPTIONS);
      await migrateClickHouse(old.clickhouse);
      const pg = old.postgres;
      await pg.query('INSERT INTO workspaces (user_id) VALUES ($1)', [ws]);
      await pg.query(`INSERT INTO event_definitions (event_id, user_id, agent, event, share_token) VALUES ($1, $2, 'test', 'legacy', $3)`, [
        eventId,
        ws,
        newId(),
      ]);
      // count gt 2 per minute, evaluated up to the end of minute 0, which raised the alert below.
      await pg.query(
        `INSERT INTO policies (policy_id, workspace_id, event_id, title, period, aggregate, condition, threshold, severity, evaluated_until)
         VALUES ($1, $2, $3, 'legacy', 'minute', 'count', 'gt', 2, 'error', $4)`,
        [policyId, ws, eventId, new Date(t0 + MINUTE)],
      );
      await pg.query(
        `INSERT INTO alerts (alert_id, workspace_id, policy_id, event_id, agent, event, title, channel, period, aggregate, condition,
                             threshold, severity, value, count, min, max, bucket_start, bucket_end, status, triggered_at)
         VALUES ($1, $2, $3, $4, 'test', 'legacy', 'legacy', 'default', 'minute', 'count', 'gt', 2, 'error', 5, 5, 1, 1, $5, $6, 'triggered', $6)`,
        [alertId, ws, policyId, eventId, new Date(t0), new Date(t0 + MINUTE)],
      );
    } finally {
      await old.close();
    }

    // Start-up applies the migrations from 0006 on.
    svc = await startTestService({ env: IDLE_WORKER_ENV, storeOptions: options });
    const token = await svc.tokenFor(ws);
    const policy = await svc.request('GET', `/v1.0/policies/${policyId}`, { token });
    expect(policy.status, policy.text).to.equal(200);
    expect(policy.body).to.include({
      threshold: 2,
      pending_buckets: 1,
      recovery_threshold: null,
      no_data: 'no_verdict',
      compare_to: null,
      min_count: 0,
      renotify_minutes: null,
    });
    const alert = await svc.request('GET', `/v1.0/alerts/${alertId}`, { token });
    expect(alert.body).to.include({
      status: 'triggered',
      value: 5,
      aggregate_value: 5,
      comparison_value: null,
      recovery_threshold: null,
      compare_to: null,
      breaching_since: new Date(t0).toISOString(),
      breaching_buckets: 1,
      peak_value: 5,
      silent_since: null,
    });
    // An alert from before labels is labelled with its agent (migration 0020).
    expect(alert.body.labels).to.deep.equal({ agent: 'test' });

    // Minute 1 breaches (4 logs): the open alert is updated, not raised again. Minute 2 (2 logs) no longer breaches: it resolves.
    const burst = (minute: number, n: number) => Array.from({ length: n }, (_, i) => [1, t0 + minute * MINUTE + 1000 + i] as const);
    await ingestAt(svc.stores, ws, 'legacy', [...burst(1, 4), ...burst(2, 2)]);
    const clock = { now: t0 + 2 * MINUTE + GRACE_MS + 1 };
    const evaluator = evaluatorAt(svc.stores, clock);
    await evaluator.evaluateDuePolicies();
    expect((await alertsOf(svc, token, policyId)).map((a) => [a.alert_id, a.status, a.value, a.breaching_buckets])).to.deep.equal([
      [alertId, 'triggered', 4, 2],
    ]);
    clock.now += 30 * MINUTE; // half an hour on: no reminder, since none was asked for
    await evaluator.evaluateDuePolicies();
    expect((await alertsOf(svc, token, policyId)).map((a) => [a.alert_id, a.status])).to.deep.equal([[alertId, 'resolved']]);
    expect((await outboxOf(svc.stores, policyId)).map((o) => o.type)).to.deep.equal(['alert.resolved']);
  });
});
