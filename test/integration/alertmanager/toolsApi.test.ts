// The tools' API of an alert source (GET …/api/v2/status, alerts, alerts/groups): the
// answers have the shapes the real Alertmanager 0.25 gives to the same requests (recorded in
// test/fixtures/alertmanager/ by referenceHarness.test.ts: keys and types, not values), the
// filter takes Alertmanager's matchers (a bad one → 400), and amtool — a strict swagger
// client — reads the status and queries the alerts through it with the workspace token.
import { expect } from 'chai';
import path from 'node:path';
import { projectRoot } from '../../../src/paths.js';
import { amtool, amtoolBinary } from '../../helpers/alertmanager.js';
import { missingBinary } from '../../helpers/realServers.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { recordedShape, shapeDifferences, shapeOf } from '../../helpers/shape.js';

const fixtures = path.join(projectRoot, 'test', 'fixtures', 'alertmanager');
/** Held against the recorded reference; never re-recorded from alertmon's answers. */
const expectReferenceShape = (name: string, actual: unknown) => {
  const shape = shapeOf(actual);
  const saved = process.env.RECORD_SHAPES;
  delete process.env.RECORD_SHAPES;
  try {
    expect(shapeDifferences(recordedShape(path.join(fixtures, `${name}.shape.json`), shape), shape), name).to.deep.equal([]);
  } finally {
    if (saved !== undefined) process.env.RECORD_SHAPES = saved;
  }
};

describe('the tools’ API of an alert source', function () {
  this.timeout(120_000);
  let svc: TestService;
  let token: string;
  let prefix: string;

  before(async function () {
    this.timeout(600_000);
    svc = await startTestService();
    token = await svc.tokenFor('am-tools-ws');
    const source = await svc.request('POST', '/v1.0/alert-sources', { token, body: { name: 'Prometheus' } });
    prefix = `/alertmanager/${source.body.alert_source_id}`;
    const res = await svc.request('POST', `${prefix}/api/v2/alerts`, {
      token,
      body: [
        { labels: { alertname: 'NodeDown', instance: 'n1', severity: 'critical' }, annotations: { summary: 'n1 down' }, generatorURL: 'http://prom/graph' },
        { labels: { alertname: 'ServiceDown', instance: 'n1' }, annotations: { summary: 'svc down' } },
      ],
    });
    expect(res.status, res.text).to.equal(200);
  });
  after(() => svc?.close());

  const get = (p: string, tok = token) => svc.request('GET', `${prefix}/api/v2${p}`, { token: tok });

  it('answers status, alerts and alerts/groups in Alertmanager’s shapes', async () => {
    const status = await get('/status');
    expect(status.status, status.text).to.equal(200);
    expectReferenceShape('status', status.body);
    const alerts = await get('/alerts');
    expect(alerts.status, alerts.text).to.equal(200);
    expect(alerts.body).to.have.length(2);
    expectReferenceShape('alerts', alerts.body);
    const groups = await get('/alerts/groups');
    expect(groups.status, groups.text).to.equal(200);
    expectReferenceShape('alert-groups', groups.body);
  });

  it('filters with matchers, refuses a bad one, and hides another workspace’s source', async () => {
    const one = await get(`/alerts?filter=${encodeURIComponent('alertname=~"Node.*"')}`);
    expect(one.body.map((a: { labels: { alertname: string } }) => a.labels.alertname)).to.deep.equal(['NodeDown']);
    expect((await get(`/alerts?filter=${encodeURIComponent('alertname=~"(a"')}`)).status).to.equal(400);
    expect((await get('/alerts?active=maybe')).status).to.equal(400);
    expect((await get('/alerts?active=false')).body).to.deep.equal([]);
    const other = await svc.tokenFor('am-tools-other');
    expect((await get('/alerts', other)).status).to.equal(404);
  });

  it('serves amtool: config show reads the status, alert query lists the alerts', async function () {
    if (amtoolBinary() === null) {
      console.log(missingBinary('amtool', 'prometheus-alertmanager', 'AMTOOL_PATH'));
      this.skip();
    }
    const url = `${svc.url}${prefix}`;
    const config = await amtool(url, ['config', 'show'], { token });
    expect(config.code, config.stderr).to.equal(0);
    const query = await amtool(url, ['alert', 'query', '-o', 'json'], { token });
    expect(query.code, query.stderr).to.equal(0);
    const names = (JSON.parse(query.stdout) as { labels: { alertname: string } }[]).map((a) => a.labels.alertname).sort();
    expect(names).to.deep.equal(['NodeDown', 'ServiceDown']);
    const filtered = await amtool(url, ['alert', 'query', '-o', 'json', 'alertname=ServiceDown'], { token });
    expect(filtered.code, filtered.stderr).to.equal(0);
    expect(JSON.parse(filtered.stdout)).to.have.length(1);
  });

  it('makes, reads and ends silences with matchers, in Alertmanager’s shapes, as alertmon silences', async () => {
    const endsAt = new Date(Date.now() + 3_600_000).toISOString();
    const made = await svc.request('POST', `${prefix}/api/v2/silences`, {
      token,
      body: {
        matchers: [{ name: 'alertname', value: 'Service.*', isRegex: true, isEqual: true }],
        startsAt: new Date().toISOString(),
        endsAt,
        createdBy: 'ops',
        comment: 'deploy',
      },
    });
    expect(made.status, made.text).to.equal(200);
    const id: string = made.body.silenceID;
    const list = await get('/silences');
    expect(list.status, list.text).to.equal(200);
    expectReferenceShape('silences', list.body);
    expect((await get(`/silence/${id}`)).body).to.include({ id, createdBy: 'ops', comment: 'deploy' });
    // It silences the alerts its matchers match, and only those.
    const alerts = (await get('/alerts')).body as { labels: { alertname: string }; status: { state: string; silencedBy: string[] } }[];
    const byName = Object.fromEntries(alerts.map((a) => [a.labels.alertname, a.status]));
    expect(byName.ServiceDown).to.deep.equal({ state: 'suppressed', silencedBy: [id], inhibitedBy: [] });
    expect(byName.NodeDown!.state).to.equal('active');
    expect((await get('/alerts?silenced=false')).body.map((a: { labels: { alertname: string } }) => a.labels.alertname)).to.deep.equal(['NodeDown']);
    // An alertmon silence: /v1.0/silences shows it, with its matchers as text.
    const own = await svc.request('GET', `/v1.0/silences/${id}`, { token });
    expect(own.body).to.include({ policy_ids: null, created_by: 'ops', comment: 'deploy', active: true });
    expect(own.body.matchers).to.deep.equal(['alertname=~"Service.*"']);
    // Bad matchers: 400, nothing made.
    const before = (await get('/silences')).body.length;
    for (const matchers of [[{ name: 'a', value: '(x', isRegex: true }], [{ name: 'a', value: '', isRegex: false }], []]) {
      const bad = await svc.request('POST', `${prefix}/api/v2/silences`, { token, body: { matchers, startsAt: new Date().toISOString(), endsAt } });
      expect(bad.status, bad.text).to.equal(400);
    }
    expect((await get('/silences')).body.length).to.equal(before);
    // DELETE expires it, as Alertmanager: it ends now and is still listed, expired.
    const expiredAt = Date.now();
    expect((await svc.request('DELETE', `${prefix}/api/v2/silence/${id}`, { token })).status).to.equal(200);
    const expired = await get(`/silence/${id}`);
    expect(expired.status, expired.text).to.equal(200);
    expect(expired.body).to.include({ id, comment: 'deploy' });
    expect(expired.body.status).to.deep.equal({ state: 'expired' });
    expect(Date.parse(expired.body.endsAt)).to.be.within(expiredAt - 1000, Date.now());
    const listed = (await get('/silences')).body as { id: string; status: { state: string } }[];
    expect(listed.find((s) => s.id === id)?.status.state).to.equal('expired');
    expectReferenceShape('silences', listed);
    expect((await svc.request('GET', `/v1.0/silences/${id}`, { token })).body).to.include({ active: false });
    const after = (await get('/alerts')).body as { labels: { alertname: string }; status: { state: string } }[];
    expect(after.find((a) => a.labels.alertname === 'ServiceDown')?.status.state, 'no longer silenced').to.equal('active');
    // Expiring it again changes nothing; an unknown silence is 404.
    expect((await svc.request('DELETE', `${prefix}/api/v2/silence/${id}`, { token })).status).to.equal(200);
    expect((await get(`/silence/${id}`)).body.endsAt).to.equal(expired.body.endsAt);
    expect((await svc.request('DELETE', `${prefix}/api/v2/silence/00000000-0000-4000-8000-000000000000`, { token })).status).to.equal(404);
    // A pending silence expires at once: it starts and ends now.
    const pending = await svc.request('POST', `${prefix}/api/v2/silences`, {
      token,
      body: { matchers: [{ name: 'alertname', value: 'Later', isRegex: false }], startsAt: endsAt, endsAt: new Date(Date.now() + 7_200_000).toISOString() },
    });
    expect(pending.status, pending.text).to.equal(200);
    expect((await get(`/silence/${pending.body.silenceID}`)).body.status.state).to.equal('pending');
    expect((await svc.request('DELETE', `${prefix}/api/v2/silence/${pending.body.silenceID}`, { token })).status).to.equal(200);
    const ended = (await get(`/silence/${pending.body.silenceID}`)).body;
    expect(ended.status.state).to.equal('expired');
    expect(Date.parse(ended.startsAt)).to.be.at.most(Date.parse(ended.endsAt));
    expect(Date.parse(ended.endsAt)).to.be.at.most(Date.now());
  });

  it('serves amtool: silence add, query and expire', async function () {
    if (amtoolBinary() === null) {
      console.log(missingBinary('amtool', 'prometheus-alertmanager', 'AMTOOL_PATH'));
      this.skip();
    }
    const url = `${svc.url}${prefix}`;
    const added = await amtool(
      url,
      ['silence', 'add', 'alertname=NodeDown', 'instance=~"n.*"', '--comment=maintenance', '--duration=2h', '--author=amtool-test'],
      { token },
    );
    expect(added.code, added.stderr).to.equal(0);
    const id = added.stdout.trim();
    expect(id).to.match(/^[0-9a-f-]{36}$/);
    const query = await amtool(url, ['silence', 'query', '-o', 'json'], { token });
    expect(query.code, query.stderr).to.equal(0);
    const found = (JSON.parse(query.stdout) as { id: string; createdBy: string }[]).find((s) => s.id === id);
    expect(found?.createdBy).to.equal('amtool-test');
    const alerts = await amtool(url, ['alert', 'query', '-o', 'json', '--silenced', 'alertname=NodeDown'], { token });
    expect(alerts.code, alerts.stderr).to.equal(0);
    expect(JSON.parse(alerts.stdout)[0].status.silencedBy).to.deep.equal([id]);
    const expired = await amtool(url, ['silence', 'expire', id], { token });
    expect(expired.code, expired.stderr).to.equal(0);
    // Expired, not gone: amtool lists it among the expired silences.
    const listed = await amtool(url, ['silence', 'query', '--expired', '-o', 'json'], { token });
    expect(listed.code, listed.stderr).to.equal(0);
    expect((JSON.parse(listed.stdout) as { id: string; status: { state: string } }[]).find((s) => s.id === id)?.status.state).to.equal('expired');
    expect((await svc.request('GET', `/v1.0/silences/${id}`, { token })).body).to.include({ active: false });
  });
});
