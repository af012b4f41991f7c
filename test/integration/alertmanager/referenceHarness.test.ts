// The reference that alertmon's Alertmanager API is held against: Debian's real Alertmanager
// takes a postable alert and sends its webhook v4 body to a local fake, amtool makes and
// reads a silence on it, and the shapes (keys and types, not values) of its answers to
// GET /api/v2/alerts, /alerts/groups, /silences and /status and of its webhook body are the
// recorded ones under test/fixtures/alertmanager/ (RECORD_SHAPES=1 records them anew). A real
// Prometheus and vmalert post their firing alerts to a fake under a path prefix with a bearer
// token, as they will to alertmon; what they send is recorded the same way. Each part skips,
// saying why, where its binary is missing (.ci/run installs them).
import { expect } from 'chai';
import path from 'node:path';
import { labelsFingerprint } from '../../../src/labels/labels.js';
import { projectRoot } from '../../../src/paths.js';
import { alertmanagerBinary, amtool, amtoolBinary, startAlertmanager } from '../../helpers/alertmanager.js';
import { prometheusBinary, startPrometheus, startVmalert, vmalertBinary } from '../../helpers/alertSenders.js';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { missingBinary, type RunningServer } from '../../helpers/realServers.js';
import { mergeShapes, recordedShape, shapeDifferences, shapeOf, type Shape } from '../../helpers/shape.js';
import { describeInOneRun } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';

const fixtures = path.join(projectRoot, 'test', 'fixtures', 'alertmanager');

/** `actual` has the recorded shape `name`. */
function expectRecordedShape(name: string, actual: Shape): void {
  expect(shapeDifferences(recordedShape(path.join(fixtures, `${name}.shape.json`), actual), actual), name).to.deep.equal([]);
}

const json = async (url: string) => {
  const res = await fetch(url);
  expect(res.status, url).to.equal(200);
  return (await res.json()) as unknown;
};

/** A rule that fires at once, with labels and annotations as rules usually have them. */
const FIRING_RULES = [
  'groups:',
  '  - name: harness',
  '    rules:',
  '      - alert: HarnessFiring',
  '        expr: vector(1)',
  '        labels: {severity: warning, team: infra}',
  '        annotations: {summary: "The harness fires", description: "value {{ $value }}"}',
  '',
].join('\n');

describeInOneRun('the real Alertmanager, Prometheus and vmalert (reference harness)', function () {
  this.timeout(120_000);

  it('compares shapes by keys and types, not values', () => {
    const a = shapeOf({ id: 'x', n: 1, labels: { a: 'b' }, list: [{ k: 1 }, { k: 2, extra: true }] });
    expect(a).to.deep.equal({ id: 'string', labels: { '*': 'string' }, list: [{ extra: { anyOf: ['absent', 'boolean'] }, k: 'number' }], n: 'number' });
    expect(shapeDifferences(a, shapeOf({ id: 'y', n: 2, labels: { other: 'c' }, list: [] }))).to.deep.equal([]);
    expect(shapeDifferences(a, shapeOf({ id: 1, labels: {}, list: [{ k: 1, extra: false }], more: null }))).to.deep.equal([
      '/id: "number" where the reference has "string"',
      '/more: not in the reference ("null")',
      '/n: missing (the reference has "number")',
    ]);
    expect(mergeShapes('string', 'null')).to.deep.equal({ anyOf: ['null', 'string'] });
  });

  describe('Alertmanager and amtool', () => {
    const am = alertmanagerBinary();
    const tool = amtoolBinary();
    let webhook: FakeHttpServer;
    let alertmanager: RunningServer;

    before(async function () {
      if (am === null || tool === null) {
        console.log(missingBinary(am === null ? 'alertmanager' : 'amtool', 'prometheus-alertmanager', am === null ? 'ALERTMANAGER_PATH' : 'AMTOOL_PATH'));
        this.skip();
      }
      webhook = await FakeHttpServer.start();
      alertmanager = await startAlertmanager({
        webhookUrl: `${webhook.origin}/hook`,
        groupBy: ['alertname'],
        extraConfig: [
          'inhibit_rules:',
          '  - source_matchers: [alertname="NodeDown"]',
          '    target_matchers: [alertname="ServiceDown"]',
          '    equal: [instance]',
        ].join('\n'),
      });
    });
    after(async () => {
      await alertmanager?.stop();
      await webhook?.close();
    });

    it('reports its version (the reference is Alertmanager 0.25)', async () => {
      const status = (await json(`${alertmanager.url}/api/v2/status`)) as { versionInfo: { version: string } };
      expect(status.versionInfo.version).to.match(/^0\.\d+\.\d+/);
    });

    it('takes a postable alert, sends webhook v4, and answers the tools’ API in the recorded shapes', async () => {
      const post = (alerts: unknown[]) =>
        fetch(`${alertmanager.url}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(alerts) });
      const startsAt = new Date(Date.now() - 60_000).toISOString();
      const disk = {
        labels: { alertname: 'DiskFull', severity: 'critical', instance: 'db-1:9100' },
        annotations: { summary: 'Disk full on db-1', description: 'Only 1% left' },
        startsAt,
        generatorURL: 'http://prometheus.example/graph?g0.expr=disk',
      };
      expect((await post([disk])).status).to.equal(200);
      const [firing] = await webhook.waitForRequests(1);
      expect(firing!.path).to.equal('/hook');
      expect(firing!.json).to.include({ version: '4', status: 'firing', receiver: 'recorder', truncatedAlerts: 0 });
      expect(firing!.json.groupLabels).to.deep.equal({ alertname: 'DiskFull' });
      expect(firing!.json.alerts.map((a: { labels: object }) => a.labels)).to.deep.equal([disk.labels]);

      // A silence made with amtool, covering a second alert.
      const added = await amtool(alertmanager.url, ['silence', 'add', 'alertname=Watchdog', '--comment=harness', '--duration=1h', '--author=tester']);
      expect(added.code, added.stderr).to.equal(0);
      const silenceId = added.stdout.trim();
      expect(silenceId).to.match(/^[0-9a-f-]{36}$/);
      expect((await post([{ labels: { alertname: 'Watchdog', severity: 'none' }, annotations: {}, startsAt }])).status).to.equal(200);
      // And an alert another inhibits.
      const node = (alertname: string) => ({ labels: { alertname, instance: 'db-1:9100' }, annotations: { summary: alertname }, startsAt });
      // The source alert first: Alertmanager's inhibitor learns of source alerts asynchronously, so
      // with group_wait 0s a target posted beside its source may be sent before it is inhibited.
      expect((await post([node('NodeDown')])).status).to.equal(200);
      await waitFor('NodeDown sent', async () => (webhook.requests.some((r) => r.json.groupLabels.alertname === 'NodeDown') ? true : null));
      expect((await post([node('ServiceDown')])).status).to.equal(200);
      const queried = await amtool(alertmanager.url, ['-o', 'json', 'silence', 'query']);
      expect(queried.code, queried.stderr).to.equal(0);
      expect(JSON.parse(queried.stdout).map((s: { id: string }) => s.id)).to.deep.equal([silenceId]);
      const alertQuery = await amtool(alertmanager.url, ['-o', 'json', 'alert', 'query', '--silenced']);
      expect(alertQuery.code, alertQuery.stderr).to.equal(0);

      type Gettable = { labels: { alertname: string }; status: { state: string; silencedBy: string[]; inhibitedBy: string[] } };
      const alerts = await waitFor('four alerts, one silenced, one inhibited', async () => {
        const list = (await json(`${alertmanager.url}/api/v2/alerts`)) as Gettable[];
        const status = (name: string) => list.find((a) => a.labels.alertname === name)?.status;
        return list.length === 4 && status('Watchdog')?.silencedBy.length === 1 && status('ServiceDown')?.inhibitedBy.length === 1 ? list : null;
      });
      // alertmon's fingerprint of a label set is the one Alertmanager shows.
      for (const a of alerts as (Gettable & { fingerprint: string; labels: Record<string, string> })[]) {
        expect(a.fingerprint, a.labels.alertname).to.equal(labelsFingerprint(a.labels));
      }
      expect(alerts.map((a) => `${a.labels.alertname} ${a.status.state}`).sort()).to.deep.equal([
        'DiskFull active',
        'NodeDown active',
        'ServiceDown suppressed',
        'Watchdog suppressed',
      ]);
      expectRecordedShape('alerts', shapeOf(alerts));
      expectRecordedShape('alert-groups', shapeOf(await json(`${alertmanager.url}/api/v2/alerts/groups`)));
      expectRecordedShape('silences', shapeOf(await json(`${alertmanager.url}/api/v2/silences`)));
      expectRecordedShape('status', shapeOf(await json(`${alertmanager.url}/api/v2/status`)));

      // Resolved by a past endsAt: the next body of its group says so, in the same shape.
      expect((await post([{ ...disk, endsAt: new Date(Date.now() - 1000).toISOString() }])).status).to.equal(200);
      const bodiesOf = (alertname: string) => webhook.requests.filter((r) => r.json.groupLabels.alertname === alertname).map((r) => r.json);
      const [, resolved] = await waitFor('the resolved body', async () => (bodiesOf('DiskFull').length >= 2 ? bodiesOf('DiskFull') : null));
      expect(resolved).to.include({ version: '4', status: 'resolved' });
      // Silenced and inhibited alerts sent nothing.
      expect([...new Set(webhook.requests.map((r) => r.json.groupLabels.alertname))].sort()).to.deep.equal(['DiskFull', 'NodeDown']);
      expectRecordedShape('webhook-v4', mergeShapes(shapeOf(firing!.json), shapeOf(resolved)));
    });
  });

  describe('Prometheus and vmalert as senders', () => {
    const prom = prometheusBinary();
    const vm = vmalertBinary();
    let receiver: FakeHttpServer;
    let prometheus: RunningServer | undefined;

    before(async function () {
      if (prom === null) {
        console.log(missingBinary('prometheus', 'prometheus', 'PROMETHEUS_PATH'));
        this.skip();
      }
      receiver = await FakeHttpServer.start();
      prometheus = await startPrometheus({
        rules: FIRING_RULES,
        alertmanager: { origin: receiver.origin, pathPrefix: '/alertmanager/prometheus-source', token: 'chp_harness_prometheus' },
      });
    });
    after(async () => {
      await prometheus?.stop();
      await receiver?.close();
    });

    const postsTo = (prefix: string) =>
      waitFor(`a post under ${prefix}`, async () => receiver.requests.find((r) => r.path === `${prefix}/api/v2/alerts`) ?? null, 60_000);

    it('Prometheus posts its firing alerts under path_prefix, with authorization.credentials as Bearer', async () => {
      const posted = await postsTo('/alertmanager/prometheus-source');
      expect(posted.method).to.equal('POST');
      expect(posted.headers.authorization).to.equal('Bearer chp_harness_prometheus');
      expect(posted.headers['content-type']).to.equal('application/json');
      expect(posted.json[0].labels).to.deep.equal({ alertname: 'HarnessFiring', severity: 'warning', team: 'infra' });
      expect(posted.json[0].annotations).to.deep.equal({ summary: 'The harness fires', description: 'value 1' });
      expectRecordedShape('prometheus-post', shapeOf(posted.json));
      // It sends every active alert again (here every second): the re-posts alertmon must not notify twice.
      await waitFor('a re-post', async () => (receiver.requests.filter((r) => r.path === posted.path).length >= 2 ? true : null), 30_000);
    });

    it('vmalert posts its firing alerts to -notifier.url, with -notifier.bearerToken', async function () {
      if (vm === null) {
        console.log(missingBinary('vmalert', 'victoria-metrics', 'VMALERT_PATH'));
        this.skip();
      }
      const vmalert = await startVmalert({
        rules: FIRING_RULES,
        datasourceUrl: prometheus!.url,
        alertmanager: { origin: receiver.origin, pathPrefix: '/alertmanager/vmalert-source', token: 'chp_harness_vmalert' },
      });
      try {
        const posted = await postsTo('/alertmanager/vmalert-source');
        expect(posted.headers.authorization).to.equal('Bearer chp_harness_vmalert');
        expect(posted.json[0].labels).to.include({ alertname: 'HarnessFiring', severity: 'warning', team: 'infra' });
        expectRecordedShape('vmalert-post', shapeOf(posted.json));
      } finally {
        await vmalert.stop();
      }
    });
  });
});
