import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';
import { baseMinute, createEvent, createPolicy, IDLE_WORKER_ENV, ingestAt, MINUTE, outboxOf } from '../evaluation/helpers.js';
import type { Json } from '../../helpers/http.js';
import { PresentedAlertList } from '../../../src/alerts/presentedList.js';
import type { Queryable } from '../../../src/stores/postgres.js';
import { labelsFingerprint } from '../../../src/labels/labels.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('alerts API', function () {
  this.timeout(120_000);
  let svc: TestService;
  let token: string;
  let otherToken: string;
  const ws = 'alerts-ws';
  let eventId: string;
  const t0 = baseMinute();

  before(async () => {
    svc = await startTestService({ env: IDLE_WORKER_ENV });
    token = await svc.tokenFor(ws);
    otherToken = await svc.tokenFor('alerts-other-ws');
    eventId = await createEvent(svc, token, 'errors', 'UTC', 'api');
    await ingestAt(
      svc.stores,
      ws,
      'errors',
      [
        [5, t0 + 1000],
        [7, t0 + 2000],
      ],
      'api',
    );
  });
  after(() => svc.close());

  /** A new policy that breaches, and its freshly triggered alert. */
  async function triggeredAlert(): Promise<{ policyId: string; alert: Json }> {
    const policyId = await createPolicy(svc, token, {
      event_id: eventId,
      aggregate: 'max',
      condition: 'gte',
      threshold: 7,
      title: 'Errors',
      channel: 'ops',
      severity: 'critical',
    });
    const res = await svc.request('POST', `/v1.0/policies/${policyId}/evaluate`, { token, body: { at: new Date(t0 + MINUTE).toISOString() } });
    expect(res.status).to.equal(200);
    expect(res.body.breached).to.equal(true);
    return { policyId, alert: res.body.alert };
  }
  const act = (alertId: string, action: string, as = token) => svc.request('POST', `/v1.0/alerts/${alertId}/${action}`, { token: as });

  it('shows the alert with its stream context, rule, result and lifecycle', async () => {
    const { policyId, alert } = await triggeredAlert();
    const read = await svc.request('GET', `/v1.0/alerts/${alert.alert_id}`, { token });
    expect(read.status).to.equal(200);
    expect(read.body).to.deep.equal(alert);
    expect(read.body).to.include({
      policy_id: policyId,
      event_id: eventId,
      agent: 'api',
      event: 'errors',
      title: 'Errors',
      channel: 'ops',
      period: 'minute',
      aggregate: 'max',
      condition: 'gte',
      threshold: 7,
      severity: 'critical',
      value: 7,
      count: 2,
      min: 5,
      max: 7,
      status: 'triggered',
      acknowledged_at: null,
      resolved_at: null,
      alerted_at: null,
    });
    expect(read.body.triggered_at).to.match(ISO_MS);
    // A policy on one event definition labels its alerts with the agent.
    expect(read.body.labels).to.deep.equal({ agent: 'api' });
    expect(read.body.fingerprint).to.equal(labelsFingerprint({ agent: 'api' }));
  });

  it('acknowledges, resolves and archives per the transition table; a repeat answers 200 unchanged, any other move 409', async () => {
    const { policyId, alert } = await triggeredAlert();
    const id = alert.alert_id;
    const ack = await act(id, 'acknowledge');
    expect(ack.status).to.equal(200);
    expect(ack.body).to.include({ status: 'acknowledged', resolved_at: null });
    expect(ack.body.acknowledged_at).to.match(ISO_MS);
    // A retried acknowledge (its answer was lost): the alert as it was, nothing changed.
    const again = await act(id, 'acknowledge');
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(ack.body);

    const resolved = await act(id, 'resolve');
    expect(resolved.status).to.equal(200);
    expect(resolved.body).to.include({ status: 'resolved', acknowledged_at: ack.body.acknowledged_at });
    expect(resolved.body.resolved_at).to.match(ISO_MS);
    const conflict = await act(id, 'acknowledge');
    expect(conflict.status).to.equal(409);
    expect(conflict.body.error.code).to.equal('invalid_transition');
    expect(conflict.body.message).to.equal(conflict.body.error.message);
    const resolvedAgain = await act(id, 'resolve');
    expect(resolvedAgain.status).to.equal(200);
    expect(resolvedAgain.body).to.deep.equal(resolved.body);

    const archived = await act(id, 'archive');
    expect(archived.status).to.equal(200);
    expect(archived.body.status).to.equal('archived');
    for (const action of ['acknowledge', 'resolve']) expect((await act(id, action)).status, action).to.equal(409);
    const archivedAgain = await act(id, 'archive');
    expect(archivedAgain.status).to.equal(200);
    expect(archivedAgain.body).to.deep.equal(archived.body);

    // The manual resolve notified once (not again on its repeat), with the alert as it was read right after.
    const outbox = await outboxOf(svc.stores, policyId);
    expect(outbox.map((o) => o.type)).to.deep.equal(['alert.triggered', 'alert.resolved']);
    expect(outbox[1]!.alert).to.deep.equal(resolved.body);
  });

  it('resolves and archives straight from triggered', async () => {
    const a = (await triggeredAlert()).alert.alert_id;
    expect((await act(a, 'resolve')).body).to.include({ status: 'resolved', acknowledged_at: null });
    const b = (await triggeredAlert()).alert.alert_id;
    expect((await act(b, 'archive')).body).to.include({ status: 'archived', resolved_at: null });
  });

  it('answers 404 for a missing or foreign alert and 400 for a non-UUID id, changing nothing', async () => {
    const { alert } = await triggeredAlert();
    for (const action of ['acknowledge', 'resolve', 'archive']) {
      expect((await act('0196f7a0-3c1e-7000-8000-00000000dead', action)).status).to.equal(404);
      expect((await act(alert.alert_id, action, otherToken)).status).to.equal(404);
      const bad = await act('not-a-uuid', action);
      expect(bad.status).to.equal(400);
      expect(bad.body.error.code).to.equal('invalid_id');
    }
    expect((await svc.request('GET', `/v1.0/alerts/${alert.alert_id}`, { token: otherToken })).status).to.equal(404);
    expect((await svc.request('GET', '/v1.0/alerts', { token: otherToken })).body).to.deep.equal([]);
    expect((await svc.request('GET', `/v1.0/alerts/${alert.alert_id}`, { token })).body.status).to.equal('triggered');
  });

  it('refuses a body on the lifecycle actions', async () => {
    const { alert } = await triggeredAlert();
    expect((await svc.request('POST', `/v1.0/alerts/${alert.alert_id}/acknowledge`, { token, body: { status: 'resolved' } })).status).to.equal(400);
  });

  it('lists newest first, filters by status, pages, and refuses an unknown status', async () => {
    expect((await act((await triggeredAlert()).alert.alert_id, 'acknowledge')).status).to.equal(200);
    const all = await svc.request('GET', '/v1.0/alerts', { token });
    expect(all.status).to.equal(200);
    const times = all.body.map((a: { triggered_at: string }) => a.triggered_at);
    expect(times).to.deep.equal([...times].sort().reverse());
    for (const status of ['triggered', 'acknowledged', 'resolved', 'archived']) {
      const res = await svc.request('GET', `/v1.0/alerts?status=${status}`, { token });
      expect(res.status).to.equal(200);
      expect(res.body.length, status).to.be.above(0);
      expect(
        res.body.every((a: { status: string }) => a.status === status),
        status,
      ).to.equal(true);
    }
    const page = await svc.request('GET', '/v1.0/alerts?limit=2&offset=1', { token });
    expect(page.body.map((a: { alert_id: string }) => a.alert_id)).to.deep.equal(all.body.slice(1, 3).map((a: { alert_id: string }) => a.alert_id));
    for (const bad of ['status=open', 'status=', 'limit=5000', 'offset=-2']) {
      const res = await svc.request('GET', `/v1.0/alerts?${bad}`, { token });
      expect(res.status, bad).to.equal(400);
    }
  });

  it('lists every write since the last read: the presented alerts kept between reads are those of the row versions listed', async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await triggeredAlert()).alert.alert_id as string);
    const [acknowledged, delivered, updated] = ids as [string, string, string];
    const listedAsRead = async (query = '') => {
      const res = await svc.request('GET', `/v1.0/alerts${query}`, { token });
      expect(res.status).to.equal(200);
      for (const a of res.body as Json[]) expect(a, a.alert_id).to.deep.equal((await svc.request('GET', `/v1.0/alerts/${a.alert_id}`, { token })).body);
      return res.body as Json[];
    };
    await listedAsRead();
    await listedAsRead('?status=triggered');

    // A lifecycle action, the delivery worker's first delivery, evaluation's update of an open alert, a new alert.
    expect((await act(acknowledged, 'acknowledge')).status).to.equal(200);
    await svc.stores.postgres.query('UPDATE alerts SET alerted_at = now() WHERE alert_id = $1', [delivered]);
    await svc.stores.postgres.query('UPDATE alerts SET value = 11, peak_value = 11, breaching_buckets = 2 WHERE alert_id = $1', [updated]);
    const raised = (await triggeredAlert()).alert.alert_id as string;

    const all = await listedAsRead();
    expect(all[0]!.alert_id).to.equal(raised);
    const byId = new Map(all.map((a) => [a.alert_id, a]));
    expect(byId.get(acknowledged)).to.include({ status: 'acknowledged', acknowledged_via: 'api' });
    expect(byId.get(delivered)!.alerted_at).to.match(ISO_MS);
    expect(byId.get(updated)).to.include({ value: 11, peak_value: 11, breaching_buckets: 2 });
    const triggered = await listedAsRead('?status=triggered');
    expect(triggered.map((a) => a.alert_id))
      .to.include.members([raised, delivered, updated])
      .and.not.include(acknowledged);
  });

  it('answers the list as of its first statement when an alert is written between its two', async () => {
    const { alert } = await triggeredAlert();
    const list = new PresentedAlertList();
    const page = { limit: 10_000, offset: 0 };
    await list.read(svc.stores.postgres, ws, page);
    await svc.stores.postgres.query('UPDATE alerts SET value = 12 WHERE alert_id = $1', [alert.alert_id]);
    // Between the listing of versions and the read of the changed alerts, the alert is acknowledged, the first time only.
    let listings = 0;
    let written = false;
    const racing: Queryable = {
      query: async (text, params) => {
        if (text.includes('ORDER BY triggered_at')) listings++;
        if (text.includes('alert_id = ANY') && !written) {
          written = true;
          await svc.stores.postgres.query(`UPDATE alerts SET status = 'acknowledged', acknowledged_at = now() WHERE alert_id = $1`, [alert.alert_id]);
        }
        return svc.stores.postgres.query(text, params);
      },
    };
    const triggered = JSON.parse(await list.read(racing, ws, page, 'triggered')) as Json[];
    expect(listings, 'listed again after the write').to.equal(2);
    expect(triggered.map((a) => a.alert_id)).not.to.include(alert.alert_id);
    const all = JSON.parse(await list.read(svc.stores.postgres, ws, page)) as Json[];
    expect(all.find((a) => a.alert_id === alert.alert_id)).to.include({ status: 'acknowledged', value: 12 });
  });

  it('keeps one open alert per policy: a breach with an open alert updates it; after a manual resolve only a later breaching bucket raises', async () => {
    const { policyId, alert } = await triggeredAlert();
    const evaluateAt = (minutes: number) =>
      svc.request('POST', `/v1.0/policies/${policyId}/evaluate`, { token, body: { at: new Date(t0 + minutes * MINUTE).toISOString() } });
    const again = await evaluateAt(1);
    expect(again.body.alert.alert_id).to.equal(alert.alert_id);
    expect((await act(alert.alert_id, 'resolve')).status).to.equal(200);
    // The bucket that raised the alert still breaches, but the alert already covered it.
    const same = await evaluateAt(1);
    expect(same.body).to.include({ breached: true, alert: null });
    const clear = await evaluateAt(3);
    expect(clear.body).to.include({ breached: false, value: null, count: 0 });
    expect(clear.body.alert).to.equal(null);
    await ingestAt(svc.stores, ws, 'errors', [[9, t0 + 4 * MINUTE + 1000]], 'api');
    const next = await evaluateAt(5);
    expect(next.body.alert.alert_id).not.to.equal(alert.alert_id);
    expect(next.body.alert).to.include({ status: 'triggered', value: 9 });
    expect((await outboxOf(svc.stores, policyId)).map((o) => o.type)).to.deep.equal(['alert.triggered', 'alert.resolved', 'alert.triggered']);
  });
});
