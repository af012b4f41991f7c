// Grouping per destination (docs/api.md, Grouping), through real dispatch to a local webhook
// sink: 1,000 alerts raised together reach a grouped destination as two messages (the first
// at once, the other 999 as one alert.group at the end of the window), each alert with its own
// delivered attempt; a restart in the middle of a window loses and doubles nothing (a kill -9
// there too: groupingKill.test.ts); a group that fails is retried as a whole; reminders and
// test sends are never grouped.
import { expect } from 'chai';
import { newId } from '../../../src/ids.js';
import type { PostgresStore } from '../../../src/stores/postgres.js';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { alertObject, seedPolicy, type SeededPolicy } from '../../helpers/outbox.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

const ENV = { ALLOW_PRIVATE_TARGETS: '1', DELIVERY_POLL_INTERVAL_MS: '50', DELIVERY_RETRY_SCHEDULE_MS: '300,300' };

/**
 * `n` triggered alerts of `n` policies of one event and their alert.triggered outbox rows, in
 * one transaction, as an evaluation that raises them together writes them.
 */
async function raiseTogether(db: PostgresStore, workspaceId: string, event: SeededPolicy, n: number, type = 'alert.triggered'): Promise<string[]> {
  const policyIds = Array.from({ length: n }, () => newId());
  const alertIds = Array.from({ length: n }, () => newId());
  const notes = alertIds.map((alertId, i) => ({
    notification_id: newId(),
    alert_id: alertId,
    policy_id: policyIds[i],
    alert: { ...alertObject(alertId, { policyId: policyIds[i]!, eventId: event.eventId }, 'triggered', `Alert ${i}`) },
  }));
  await db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO policies (policy_id, workspace_id, event_id, title, period, aggregate, condition, threshold, severity)
       SELECT id, $2, $3, 'Alert ' || (ord - 1), 'minute', 'p95_est', 'gt', 500, 'critical' FROM unnest($1::uuid[]) WITH ORDINALITY AS t(id, ord)`,
      [policyIds, workspaceId, event.eventId],
    );
    await tx.query(
      `INSERT INTO alerts (alert_id, workspace_id, policy_id, event_id, agent, event, title, channel, period, aggregate, condition, threshold,
         severity, value, count, min, max, bucket_start, bucket_end, status)
       SELECT a, $3, p, $4, 'web-1', 'http.latency_ms', 'Alert ' || (ord - 1), 'default', 'minute', 'p95_est', 'gt', 500, 'critical',
         812.5, 40, 20, 990, now() - interval '1 minute', now(), 'triggered'
       FROM unnest($1::uuid[], $2::uuid[]) WITH ORDINALITY AS t(a, p, ord)`,
      [alertIds, policyIds, workspaceId, event.eventId],
    );
    await tx.query(
      `INSERT INTO alert_notifications (notification_id, workspace_id, alert_id, policy_id, type, alert)
       SELECT x.notification_id, $2, x.alert_id, x.policy_id, $3, x.alert
       FROM jsonb_to_recordset($1::jsonb) AS x(notification_id uuid, alert_id uuid, policy_id uuid, alert jsonb)`,
      [JSON.stringify(notes), workspaceId, type],
    );
  });
  return alertIds;
}

/** Attempts of the destination by status. */
async function attemptCounts(db: PostgresStore, destinationId: string): Promise<Record<string, number>> {
  const rows = await db.query<{ status: string; n: number }>(
    'SELECT status, count(*)::int AS n FROM delivery_attempts WHERE destination_id = $1 GROUP BY status',
    [destinationId],
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

describe('grouping', function () {
  this.timeout(120_000);
  let svc: TestService;
  let sink: FakeHttpServer;

  beforeEach(async () => {
    sink = await FakeHttpServer.start();
    svc = await startTestService({ env: ENV });
  });
  afterEach(async () => {
    await svc.close();
    await sink.close();
  });

  async function groupedDestination(workspaceId: string, windowSeconds: number, path = '/grouped'): Promise<{ token: string; destinationId: string }> {
    const token = await svc.tokenFor(workspaceId);
    const res = await svc.request('POST', '/v1.0/destinations', {
      token,
      body: { channel: 'webhook', url: `${sink.origin}${path}`, group_window_seconds: windowSeconds },
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.group_window_seconds).to.equal(windowSeconds);
    return { token, destinationId: res.body.destination_id };
  }

  it('sends 1,000 alerts raised together as two messages, each alert with its delivered attempt', async () => {
    const ws = 'grouping-storm-ws';
    const { token, destinationId } = await groupedDestination(ws, 3);
    const event = await seedPolicy(svc.stores.postgres, ws);
    const alertIds = await raiseTogether(svc.stores.postgres, ws, event, 1000);

    const [first, group] = await sink.waitForRequests(2, 60_000);
    expect(first!.json.type).to.equal('alert.triggered');
    expect(group!.json).to.include({ type: 'alert.group', group_type: 'alert.triggered', count: 999 });
    const grouped: string[] = group!.json.alerts.map((a: { alert_id: string }) => a.alert_id);
    expect(grouped).to.have.length(999);
    expect(new Set([first!.json.alert.alert_id, ...grouped])).to.deep.equal(new Set(alertIds));
    expect(group!.headers['webhook-id']).to.be.a('string').and.not.equal(first!.headers['webhook-id']);

    await waitFor('1,000 delivered attempts', async () => ((await attemptCounts(svc.stores.postgres, destinationId)).delivered === 1000 ? true : null));
    expect(await attemptCounts(svc.stores.postgres, destinationId)).to.deep.equal({ delivered: 1000 });
    const perAlert = await svc.stores.postgres.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM delivery_attempts WHERE destination_id = $1 GROUP BY alert_id HAVING count(*) <> 1',
      [destinationId],
    );
    expect(perAlert, 'one attempt per alert').to.deep.equal([]);
    // An alert of the group reads its own attempt in its history.
    const history = await svc.request('GET', `/v1.0/alerts/${grouped[500]}/deliveries`, { token });
    expect(history.body).to.have.length(1);
    expect(history.body[0]).to.include({ status: 'delivered', type: 'alert.triggered', response_status: 200, destination_id: destinationId });
    expect(sink.requests).to.have.length(2);
  });

  it('loses and doubles nothing across a restart in the middle of a window', async () => {
    const ws = 'grouping-restart-ws';
    const { destinationId } = await groupedDestination(ws, 8);
    const event = await seedPolicy(svc.stores.postgres, ws);
    const alertIds = await raiseTogether(svc.stores.postgres, ws, event, 10);
    await sink.waitForRequests(1);
    await waitFor('nine held attempts', async () =>
      (await svc.stores.postgres.query<{ n: number }>('SELECT count(*)::int AS n FROM delivery_attempts WHERE group_id IS NOT NULL'))[0]!.n === 9 ? true : null,
    );
    const storeOptions = svc.storeOptions;
    await svc.close();
    expect(sink.requests, 'the window had not ended at the restart').to.have.length(1);
    svc = await startTestService({ env: ENV, storeOptions });

    const [, group] = await sink.waitForRequests(2, 30_000);
    expect(group!.json).to.include({ type: 'alert.group', count: 9 });
    await waitFor('ten delivered attempts', async () => ((await attemptCounts(svc.stores.postgres, destinationId)).delivered === 10 ? true : null));
    const sent = [sink.requests[0]!.json.alert.alert_id, ...group!.json.alerts.map((a: { alert_id: string }) => a.alert_id)];
    expect(sent.sort()).to.deep.equal([...alertIds].sort());
    expect(sink.requests).to.have.length(2);
  });

  it('retries a failed group as a whole under the same webhook-id, every member’s attempts recorded', async () => {
    const ws = 'grouping-retry-ws';
    const { destinationId } = await groupedDestination(ws, 1);
    const event = await seedPolicy(svc.stores.postgres, ws);
    sink.answerNext({ status: 200, body: 'ok' }, { status: 503, body: 'busy' });
    await raiseTogether(svc.stores.postgres, ws, event, 5);
    const requests = await sink.waitForRequests(3, 30_000);
    expect(requests.map((r) => r.json.type)).to.deep.equal(['alert.triggered', 'alert.group', 'alert.group']);
    expect(requests[1]!.headers['webhook-id']).to.equal(requests[2]!.headers['webhook-id']);
    await waitFor('the retries delivered', async () => ((await attemptCounts(svc.stores.postgres, destinationId)).delivered === 5 ? true : null));
    expect(await attemptCounts(svc.stores.postgres, destinationId)).to.deep.equal({ delivered: 5, failed: 4 });
  });

  it('never groups reminders or test sends', async () => {
    const ws = 'grouping-reminders-ws';
    const { token, destinationId } = await groupedDestination(ws, 60);
    const event = await seedPolicy(svc.stores.postgres, ws);
    await raiseTogether(svc.stores.postgres, ws, event, 3, 'alert.reminder');
    const test = await svc.request('POST', `/v1.0/destinations/${destinationId}/test`, { token });
    expect(test.status, test.text).to.equal(200);
    const requests = await sink.waitForRequests(4);
    expect(requests.map((r) => r.json.type).sort()).to.deep.equal(['alert.reminder', 'alert.reminder', 'alert.reminder', 'test']);
  });

  it('refuses a window outside 0–3600 seconds', async () => {
    const token = await svc.tokenFor('grouping-invalid-ws');
    for (const group_window_seconds of [-1, 3601, 1.5, '30']) {
      const res = await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: `${sink.origin}/x`, group_window_seconds } });
      expect(res.status, String(group_window_seconds)).to.equal(400);
      expect(JSON.stringify(res.body.error.details)).to.contain('group_window_seconds');
    }
  });
});
