// The real senders pointed at alertmon, as docs/alertmanager.md tells users to: a Prometheus
// server with a rule on a test target's metric and alerting.alertmanagers (path_prefix
// /alertmanager/<alert_source_id>, authorization.credentials = the workspace token), and
// vmalert (-notifier.url, -notifier.bearerToken) evaluating the same rule against that
// Prometheus. The rule fires: one alert of the source, delivered once to a webhook although
// the sender re-sends it every second; the metric drops: the sender's resolve resolves it.
// Each part skips, saying why, where its binary is missing (.ci/run installs them).
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { prometheusBinary, startPrometheus, startVmalert, vmalertBinary } from '../../helpers/alertSenders.js';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { missingBinary, type RunningServer } from '../../helpers/realServers.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { describeInOneRun } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';

/** A scrape target whose one metric the test sets. */
async function metricTarget(): Promise<{ host: string; set(v: number): void; close(): Promise<void> }> {
  let value = 0;
  const server = http.createServer((_req, res) => {
    res.setHeader('content-type', 'text/plain; version=0.0.4');
    res.end(`# TYPE demo_queue_depth gauge\ndemo_queue_depth ${value}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    set: (v) => {
      value = v;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const rules = (name: string) =>
  [
    'groups:',
    `  - name: ${name}`,
    '    rules:',
    `      - alert: ${name}`,
    '        expr: demo_queue_depth > 100',
    '        labels: {severity: warning, team: infra}',
    '        annotations: {summary: "Queue too deep", description: "depth {{ $value }}"}',
    '',
  ].join('\n');

describeInOneRun('real Prometheus and vmalert posting to alertmon', function () {
  this.timeout(180_000);
  let svc: TestService;
  let sink: FakeHttpServer;
  let token: string;
  const servers: RunningServer[] = [];
  let target: Awaited<ReturnType<typeof metricTarget>>;

  before(async function () {
    this.timeout(600_000);
    sink = await FakeHttpServer.start();
    target = await metricTarget();
    svc = await startTestService({ env: { ALLOW_PRIVATE_TARGETS: '1', DELIVERY_POLL_INTERVAL_MS: '50' } });
    token = await svc.tokenFor('am-senders-ws');
  });
  after(async () => {
    for (const s of servers) await s.stop();
    await svc?.close();
    await sink?.close();
    await target?.close();
  });

  async function sourceWithWebhook(name: string): Promise<string> {
    const source = await svc.request('POST', '/v1.0/alert-sources', { token, body: { name } });
    expect(source.status, source.text).to.equal(201);
    const id = source.body.alert_source_id;
    const dest = await svc.request('POST', '/v1.0/destinations', {
      token,
      body: { channel: 'webhook', url: `${sink.origin}/${name}`, scope: 'policies', policy_ids: [id] },
    });
    expect(dest.status, dest.text).to.equal(201);
    return id;
  }

  const hooks = (name: string) => sink.requests.filter((r) => r.path === `/${name}`).map((r) => r.json);
  const sentTotal = async (url: string, metric: string) => {
    const text = await (await fetch(`${url}/metrics`)).text();
    return text
      .split('\n')
      .filter((l) => l.startsWith(metric))
      .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
  };

  async function firesOnceThenResolves(name: string, sourceId: string, sender: RunningServer, sentMetric: string) {
    target.set(250);
    await waitFor(`${name}: triggered webhook`, async () => (hooks(name).length >= 1 ? true : null), 60_000);
    const [triggered] = hooks(name);
    expect(triggered.type).to.equal('alert.triggered');
    expect(triggered.alert).to.include({ alert_source_id: sourceId, title: 'Queue too deep', severity: 'warning', status: 'triggered' });
    expect(triggered.alert.labels).to.include({ alertname: name, severity: 'warning', team: 'infra' });
    expect(triggered.alert.annotations.description).to.equal('depth 250');
    // The sender re-sends it (every second); alertmon notifies nothing more.
    const sent = await sentTotal(sender.url, sentMetric);
    await waitFor(`${name}: re-sent`, async () => ((await sentTotal(sender.url, sentMetric)) >= sent + 3 ? true : null), 30_000);
    expect(hooks(name).map((h) => h.type)).to.deep.equal(['alert.triggered']);

    target.set(0);
    await waitFor(`${name}: resolved webhook`, async () => (hooks(name).length >= 2 ? true : null), 60_000);
    expect(hooks(name).map((h) => h.type)).to.deep.equal(['alert.triggered', 'alert.resolved']);
    const rows = await svc.stores.postgres.query<{ status: string; closed_by: string }>('SELECT status, closed_by FROM alerts WHERE alert_source_id = $1', [
      sourceId,
    ]);
    expect(rows).to.deep.equal([{ status: 'resolved', closed_by: 'sender' }]);
  }

  it('Prometheus: alerting.alertmanagers with path_prefix and authorization.credentials', async function () {
    if (prometheusBinary() === null) {
      console.log(missingBinary('prometheus', 'prometheus', 'PROMETHEUS_PATH'));
      this.skip();
    }
    const sourceId = await sourceWithWebhook('PromQueueDeep');
    const prometheus = await startPrometheus({
      scrapeTargets: [target.host],
      rules: rules('PromQueueDeep'),
      alertmanager: { origin: svc.url, pathPrefix: `/alertmanager/${sourceId}`, token },
    });
    servers.push(prometheus);
    await firesOnceThenResolves('PromQueueDeep', sourceId, prometheus, 'prometheus_notifications_sent_total');
  });

  it('vmalert: -notifier.url and -notifier.bearerToken', async function () {
    if (prometheusBinary() === null || vmalertBinary() === null) {
      console.log(missingBinary('vmalert', 'victoria-metrics', 'VMALERT_PATH'));
      this.skip();
    }
    const sourceId = await sourceWithWebhook('VmQueueDeep');
    target.set(0);
    const prometheus = await startPrometheus({ scrapeTargets: [target.host] });
    servers.push(prometheus);
    const vmalert = await startVmalert({
      rules: rules('VmQueueDeep'),
      datasourceUrl: prometheus.url,
      alertmanager: { origin: svc.url, pathPrefix: `/alertmanager/${sourceId}`, token },
    });
    servers.push(vmalert);
    await firesOnceThenResolves('VmQueueDeep', sourceId, vmalert, 'vmalert_alerts_sent_total');
  });
});
