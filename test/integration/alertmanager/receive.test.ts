// POST /alertmanager/<alert_source_id>/api/v2/alerts on the real engines: a firing post raises
// an alert of the source and notifies a webhook once; re-posts of unchanged alerts write no
// row; a past endsAt resolves; the lease resolves an alert no post extends; acknowledgement
// holds across re-posts; a manual resolve holds until a new startsAt; two concurrent posts of
// one new label set raise one alert; bad input and another workspace's source get a 4xx and
// change nothing.
import { expect } from 'chai';
import path from 'node:path';
import { projectRoot } from '../../../src/paths.js';
import { recordedShape, shapeDifferences, shapeOf } from '../../helpers/shape.js';
import { writeDueReminders } from '../../../src/alerts/reminders.js';
import { labelsFingerprint } from '../../../src/labels/labels.js';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

describe('receiving Alertmanager alerts', function () {
  this.timeout(120_000);
  let svc: TestService;
  let sink: FakeHttpServer;
  let token: string;
  let otherToken: string;
  let sourceId: string;

  before(async function () {
    this.timeout(600_000);
    sink = await FakeHttpServer.start();
    svc = await startTestService({ env: { ALLOW_PRIVATE_TARGETS: '1', DELIVERY_POLL_INTERVAL_MS: '50', ESCALATION_MINUTE_MS: '100' } });
    token = await svc.tokenFor('am-receive-ws');
    otherToken = await svc.tokenFor('am-receive-other');
    const source = await svc.request('POST', '/v1.0/alert-sources', { token, body: { name: 'Prometheus' } });
    expect(source.status, source.text).to.equal(201);
    sourceId = source.body.alert_source_id;
    const dest = await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: `${sink.origin}/hook` } });
    expect(dest.status, dest.text).to.equal(201);
  });
  after(async () => {
    await svc?.close();
    await sink?.close();
  });

  const post = (body: unknown, tok = token, id = sourceId) => svc.request('POST', `/alertmanager/${id}/api/v2/alerts`, { token: tok, body });
  const hooks = (fingerprint: string) => sink.requests.filter((r) => r.json?.alert?.fingerprint === fingerprint).map((r) => r.json.type as string);
  const rows = (fingerprint: string) =>
    svc.stores.postgres.query<{ alert_id: string; status: string; version: string }>(
      'SELECT alert_id, status, xmin::text AS version FROM alerts WHERE fingerprint = $1 ORDER BY triggered_at',
      [fingerprint],
    );
  const outboxCount = async () => (await svc.stores.postgres.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_notifications'))[0]!.n;

  it('raises, notifies once, writes nothing on unchanged re-posts, and resolves on a past endsAt', async () => {
    const labels = { alertname: 'HighLatency', severity: 'critical', instance: 'web-1:9100', job: 'web' };
    const fp = labelsFingerprint(labels);
    const startsAt = new Date(Date.now() - 60_000).toISOString();
    const alert = { labels, annotations: { summary: 'p99 latency above 1 s', description: 'web-1' }, startsAt, generatorURL: 'http://prom:9090/graph' };
    const res = await post([alert]);
    expect(res.status, res.text).to.equal(200);
    await waitFor('triggered webhook', async () => (hooks(fp).length === 1 ? true : null));
    const body = sink.requests.find((r) => r.json?.alert?.fingerprint === fp)!.json;
    expect(body.type).to.equal('alert.triggered');
    expect(body.alert).to.include({
      alert_source_id: sourceId,
      policy_id: null,
      event_id: null,
      title: 'p99 latency above 1 s',
      severity: 'critical',
      status: 'triggered',
      starts_at: startsAt,
      generator_url: 'http://prom:9090/graph',
    });
    expect(body.alert.labels).to.deep.equal({ alertname: 'HighLatency', instance: 'web-1:9100', job: 'web', severity: 'critical' });
    expect(body.alert.annotations).to.deep.equal({ description: 'web-1', summary: 'p99 latency above 1 s' });
    // The first delivery sets alerted_at (one write); from then on the row is the one re-posts must leave alone.
    await waitFor('alerted_at', async () => {
      const [r] = await svc.stores.postgres.query<{ alerted_at: Date | null }>('SELECT alerted_at FROM alerts WHERE fingerprint = $1', [fp]);
      return r?.alerted_at ?? null;
    });
    const [first] = await rows(fp);
    const read = await svc.request('GET', `/v1.0/alerts/${first!.alert_id}`, { token });
    expect(read.status, read.text).to.equal(200);
    expect(read.body).to.include({ alert_source_id: sourceId, fingerprint: fp, status: 'triggered' });

    // Re-posts of the same alert (as Prometheus re-sends, endsAt moving on): no row written, nothing notified.
    const notifications = await outboxCount();
    for (let i = 0; i < 3; i++) {
      expect((await post([{ ...alert, endsAt: new Date(Date.now() + 240_000 + i * 1000).toISOString() }])).status).to.equal(200);
    }
    const [again] = await rows(fp);
    expect(again!.version, 'the row was not rewritten').to.equal(first!.version);
    expect(await outboxCount()).to.equal(notifications);

    // New annotations: written, not notified.
    expect((await post([{ ...alert, annotations: { summary: 'p99 latency above 2 s' } }])).status).to.equal(200);
    const [changed] = await rows(fp);
    expect(changed!.version).to.not.equal(first!.version);
    expect(await outboxCount()).to.equal(notifications);

    // A past endsAt resolves it: one resolved notification.
    expect((await post([{ ...alert, endsAt: new Date(Date.now() - 1000).toISOString() }])).status).to.equal(200);
    await waitFor('resolved webhook', async () => (hooks(fp).length === 2 ? true : null));
    expect(hooks(fp)).to.deep.equal(['alert.triggered', 'alert.resolved']);
    expect((await rows(fp)).map((r) => r.status)).to.deep.equal(['resolved']);
  });

  it('resolves an alert whose lease passes (the last endsAt given)', async () => {
    const labels = { alertname: 'Lease', instance: 'a' };
    const fp = labelsFingerprint(labels);
    expect((await post([{ labels, endsAt: new Date(Date.now() + 1500).toISOString() }])).status).to.equal(200);
    await waitFor('resolved by the lease', async () => (hooks(fp).join() === 'alert.triggered,alert.resolved' ? true : null), 30_000);
    const [row] = await svc.stores.postgres.query<{ closed_by: string }>('SELECT closed_by FROM alerts WHERE fingerprint = $1', [fp]);
    expect(row!.closed_by).to.equal('timeout');
  });

  it('keeps an acknowledged alert acknowledged, and a manually resolved one closed until a new startsAt', async () => {
    const labels = { alertname: 'Held', instance: 'b' };
    const fp = labelsFingerprint(labels);
    const startsAt = new Date(Date.now() - 5000).toISOString();
    expect((await post([{ labels, startsAt }])).status).to.equal(200);
    const [row] = await rows(fp);
    expect((await svc.request('POST', `/v1.0/alerts/${row!.alert_id}/acknowledge`, { token })).status).to.equal(200);
    expect((await post([{ labels, startsAt, annotations: { summary: 'changed' } }])).status).to.equal(200);
    expect((await rows(fp)).map((r) => r.status)).to.deep.equal(['acknowledged']);

    expect((await svc.request('POST', `/v1.0/alerts/${row!.alert_id}/resolve`, { token })).status).to.equal(200);
    expect((await post([{ labels, startsAt }])).status).to.equal(200);
    expect(
      (await rows(fp)).map((r) => r.status),
      'the same startsAt raises nothing',
    ).to.deep.equal(['resolved']);
    expect((await post([{ labels, startsAt: new Date().toISOString() }])).status).to.equal(200);
    expect(
      (await rows(fp)).map((r) => r.status),
      'a new startsAt raises it again',
    ).to.deep.equal(['resolved', 'triggered']);
  });

  it('raises one alert for two concurrent posts of the same new label set', async () => {
    const labels = { alertname: 'Race', instance: 'c' };
    const fp = labelsFingerprint(labels);
    const answers = await Promise.all([post([{ labels }]), post([{ labels }]), post([{ labels }])]);
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200]);
    expect(await rows(fp)).to.have.length(1);
    await waitFor('one triggered webhook', async () => (hooks(fp).length >= 1 ? true : null));
    expect(hooks(fp)).to.deep.equal(['alert.triggered']);
  });

  it('answers bad input and foreign sources with a 4xx, changing nothing', async () => {
    const before = (await svc.stores.postgres.query<{ n: number }>('SELECT count(*)::int AS n FROM alerts'))[0]!.n;
    const bad: [unknown, string][] = [
      [{ labels: { a: 'b' } }, 'expected an array'],
      [[{ annotations: { a: 'b' } }], 'at least one label pair required'],
      [[{ labels: {} }], 'at least one label pair required'],
      [[{ labels: { 'bad-name': 'x' } }], 'invalid name'],
      [[{ labels: { a: 1 } }], 'must be a string'],
      [[{ labels: { a: 'b' }, startsAt: 'yesterday' }], 'RFC 3339'],
      [[{ labels: { a: 'b' }, startsAt: '2026-01-02T00:00:00Z', endsAt: '2026-01-01T00:00:00Z' }], 'start time must be before end time'],
      [[{ labels: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`l${i}`, 'v'])) }], 'at most 100 labels'],
      [[{ labels: { a: 'b' } }, 'not an object'], 'expected an object'],
    ];
    for (const [body, message] of bad) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).to.equal(400);
      expect(JSON.stringify(res.body.error), res.text).to.contain(message);
    }
    const many = Array.from({ length: 5001 }, (_, i) => ({ labels: { i: String(i) } }));
    expect((await post(many)).status).to.equal(400);
    const huge = Array.from({ length: 100_000 }, (_, i) => ({ labels: { alertname: 'Storm', i: String(i) } }));
    expect((await post(huge)).status, '100,000 alerts: over the 1 MiB body').to.equal(413);
    expect((await post([{ labels: { a: 'b' } }], otherToken)).status, "another workspace's source").to.equal(404);
    expect((await post([{ labels: { a: 'b' } }], token, '00000000-0000-4000-8000-000000000000')).status).to.equal(404);
    expect((await post([{ labels: { a: 'b' } }], 'wrong-token')).status).to.equal(401);
    expect((await post([{ labels: { a: 'b' } }], token, 'not-a-uuid')).status).to.equal(400);
    const after = (await svc.stores.postgres.query<{ n: number }>('SELECT count(*)::int AS n FROM alerts'))[0]!.n;
    expect(after).to.equal(before);
  });

  it('silences a received alert by matchers (recorded as silenced, not sent), and notifies it once when the silence ends', async () => {
    const made = await svc.request('POST', '/v1.0/silences', {
      token,
      body: { matchers: ['alertname="Quiet"', 'instance=~"q-.*"'], ends_at: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect(made.status, made.text).to.equal(201);
    const labels = { alertname: 'Quiet', instance: 'q-1' };
    const fp = labelsFingerprint(labels);
    const loud = { alertname: 'Quiet', instance: 'loud-1' };
    expect((await post([{ labels }, { labels: loud }])).status).to.equal(200);
    await waitFor('the other alert sent', async () => (hooks(labelsFingerprint(loud)).length === 1 ? true : null));
    const [row] = await rows(fp);
    const attempts = await waitFor('a silenced attempt', async () => {
      const list = (await svc.request('GET', `/v1.0/alerts/${row!.alert_id}/deliveries`, { token })).body as { status: string }[];
      return list.some((a) => a.status === 'silenced') ? list : null;
    });
    expect(attempts.map((a) => a.status)).to.deep.equal(['silenced']);
    expect(hooks(fp)).to.deep.equal([]);
    expect((await svc.request('DELETE', `/v1.0/silences/${made.body.silence_id}`, { token })).status).to.equal(204);
    await waitFor('notified at the end of the silence', async () => (hooks(fp).length === 1 ? true : null));
    expect(hooks(fp)).to.deep.equal(['alert.triggered']);
  });

  it('escalates by the source’s escalation policy and reminds by its renotify_minutes', async () => {
    const onCall = await svc.request('POST', '/v1.0/destinations', {
      token,
      body: { channel: 'webhook', url: `${sink.origin}/on-call`, scope: 'policies', policy_ids: [sourceId] },
    });
    expect(onCall.status, onCall.text).to.equal(201);
    const chain = await svc.request('POST', '/v1.0/escalation-policies', {
      token,
      body: { name: 'Night', steps: [{ after_minutes: 1, destination_ids: [onCall.body.destination_id] }] },
    });
    expect(chain.status, chain.text).to.equal(201);
    const source = await svc.request('POST', '/v1.0/alert-sources', {
      token,
      body: { name: 'Escalating', escalation_policy_id: chain.body.escalation_policy_id, renotify_minutes: 1 },
    });
    const labels = { alertname: 'Escalate', instance: 'e' };
    const fp = labelsFingerprint(labels);
    expect((await post([{ labels }], token, source.body.alert_source_id)).status).to.equal(200);
    const escalated = await waitFor('an alert.escalated notification', async () => {
      const found = sink.requests.find((r) => r.path === '/on-call' && r.json?.type === 'alert.escalated' && r.json.alert.fingerprint === fp);
      return found ?? null;
    });
    expect(escalated.json.escalation).to.deep.equal({ step: 1, of: 1, round: 1 });
    const [row] = await rows(fp);
    await svc.stores.postgres.transaction((tx) => writeDueReminders(tx, new Date(Date.now() + 61_000)));
    const types = await svc.stores.postgres.query<{ type: string }>('SELECT type FROM alert_notifications WHERE alert_id = $1 ORDER BY created_at', [
      row!.alert_id,
    ]);
    expect(types.map((t) => t.type)).to.include('alert.reminder');
  });

  it('inhibits by the source’s rules: recorded as inhibited, notified once when the inhibition ends', async () => {
    const source = await svc.request('POST', '/v1.0/alert-sources', {
      token,
      body: {
        name: 'Inhibiting',
        inhibit_rules: [{ source_matchers: ['alertname="NodeDown"'], target_matchers: ['alertname="ServiceDown"'], equal: ['instance'] }],
      },
    });
    expect(source.status, source.text).to.equal(201);
    const id = source.body.alert_source_id;
    const node = { alertname: 'NodeDown', instance: 'n1' };
    const service1 = { alertname: 'ServiceDown', instance: 'n1' };
    const service2 = { alertname: 'ServiceDown', instance: 'n2' };
    expect((await post([{ labels: node }], token, id)).status).to.equal(200);
    await waitFor('NodeDown sent', async () => (hooks(labelsFingerprint(node)).length === 1 ? true : null));
    expect((await post([{ labels: node }, { labels: service1 }, { labels: service2 }], token, id)).status).to.equal(200);
    await waitFor('ServiceDown n2 sent', async () => (hooks(labelsFingerprint(service2)).length === 1 ? true : null));
    const [inhibitedRow] = await rows(labelsFingerprint(service1));
    await waitFor('an inhibited attempt', async () => {
      const list = (await svc.request('GET', `/v1.0/alerts/${inhibitedRow!.alert_id}/deliveries`, { token })).body as { status: string }[];
      return list.some((a) => a.status === 'inhibited') ? true : null;
    });
    expect(hooks(labelsFingerprint(service1))).to.deep.equal([]);
    const listed = (await svc.request('GET', `/alertmanager/${id}/api/v2/alerts`, { token })).body as { fingerprint: string; status: object }[];
    expect(listed.find((a) => a.fingerprint === labelsFingerprint(service1))!.status).to.deep.equal({
      state: 'suppressed',
      silencedBy: [],
      inhibitedBy: [labelsFingerprint(node)],
    });
    // NodeDown resolves: the inhibition ends, ServiceDown n1 is notified, once.
    expect((await post([{ labels: node, endsAt: new Date(Date.now() - 1000).toISOString() }], token, id)).status).to.equal(200);
    await waitFor('ServiceDown n1 notified at the end', async () => (hooks(labelsFingerprint(service1)).length === 1 ? true : null));
    expect((await post([{ labels: service1 }], token, id)).status).to.equal(200);
    expect(hooks(labelsFingerprint(service1))).to.deep.equal(['alert.triggered']);
  });

  it('sends Alertmanager’s webhook v4 body to a destination with format "alertmanager", in the reference’s shape', async () => {
    const source = await svc.request('POST', '/v1.0/alert-sources', { token, body: { name: 'V4' } });
    const id = source.body.alert_source_id;
    const dest = await svc.request('POST', '/v1.0/destinations', {
      token,
      body: { channel: 'webhook', url: `${sink.origin}/v4`, scope: 'policies', policy_ids: [id], format: 'alertmanager' },
    });
    expect(dest.status, dest.text).to.equal(201);
    expect(dest.body.format).to.equal('alertmanager');
    const bad = await svc.request('POST', '/v1.0/destinations', {
      token,
      body: { channel: 'slack', url: 'https://hooks.slack.com/services/T/B/x', format: 'alertmanager' },
    });
    expect(bad.status, bad.text).to.equal(400);
    const labels = { alertname: 'V4Alert', instance: 'v4', severity: 'warning' };
    const alert = { labels, annotations: { summary: 'v4 summary' }, generatorURL: 'http://prom/graph', startsAt: new Date(Date.now() - 60_000).toISOString() };
    expect((await post([alert], token, id)).status).to.equal(200);
    const [firing] = await waitFor('a v4 body', async () => {
      const got = sink.requests.filter((r) => r.path === '/v4');
      return got.length >= 1 ? got : null;
    });
    const shape = shapeOf(firing!.json);
    const saved = process.env.RECORD_SHAPES;
    delete process.env.RECORD_SHAPES;
    try {
      expect(shapeDifferences(recordedShape(path.join(projectRoot, 'test', 'fixtures', 'alertmanager', 'webhook-v4.shape.json'), shape), shape)).to.deep.equal(
        [],
      );
    } finally {
      if (saved !== undefined) process.env.RECORD_SHAPES = saved;
    }
    expect(firing!.json).to.include({ version: '4', status: 'firing', truncatedAlerts: 0 });
    expect(firing!.json.alerts[0]).to.include({ status: 'firing', fingerprint: labelsFingerprint(labels), generatorURL: 'http://prom/graph' });
    expect(firing!.json.alerts[0].labels).to.deep.equal(labels);
    expect(firing!.json.commonAnnotations).to.deep.equal({ summary: 'v4 summary' });
    expect(firing!.headers['webhook-signature']).to.match(/^v1,/);
    expect((await post([{ ...alert, endsAt: new Date(Date.now() - 1000).toISOString() }], token, id)).status).to.equal(200);
    const resolved = await waitFor('a resolved v4 body', async () => sink.requests.find((r) => r.path === '/v4' && r.json.status === 'resolved') ?? null);
    expect(resolved.json.alerts[0].status).to.equal('resolved');
    expect(resolved.json.alerts[0].endsAt).to.not.equal('0001-01-01T00:00:00Z');
  });

  it('resolves the open alerts of a deleted source', async () => {
    const source = await svc.request('POST', '/v1.0/alert-sources', { token, body: { name: 'Gone' } });
    const labels = { alertname: 'Orphan' };
    const fp = labelsFingerprint(labels);
    expect((await post([{ labels }], token, source.body.alert_source_id)).status).to.equal(200);
    expect((await svc.request('DELETE', `/v1.0/alert-sources/${source.body.alert_source_id}`, { token })).status).to.equal(204);
    expect((await rows(fp)).map((r) => r.status)).to.deep.equal(['resolved']);
  });
});
