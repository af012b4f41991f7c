// A real Prometheus server (Debian's package) remote-writes a labelled counter: the metric's
// labels become its dimensions on first sight, its samples are broken down by them, and a
// fleet policy with filter {code: "500"} raises on the code-500 series' increases only.
// Skipped, saying why, where no prometheus binary is installed.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AlertJson } from '../../../src/alerts/model.js';
import { prometheusBinary, startPrometheus } from '../../helpers/alertSenders.js';
import { queryRows } from '../../helpers/logs.js';
import { missingBinary, type RunningServer } from '../../helpers/realServers.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { describeInEmbeddedRunOnly } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';

describeInEmbeddedRunOnly('a fleet policy on a label of a real Prometheus remote-write', function () {
  this.timeout(180_000);
  const binary = prometheusBinary();
  let svc: TestService;
  let token: string;
  let target: Server;
  let prometheus: RunningServer | undefined;

  before(async function () {
    if (binary === null) {
      console.log(missingBinary('prometheus', 'prometheus', 'PROMETHEUS_PATH'));
      this.skip();
    }
    svc = await startTestService();
    token = await svc.tokenFor('prom-fleet-ws');
    let scrapes = 0;
    // Code 500 grows by 5 a scrape; code 200 stays where it is (its increases are 0).
    target = createServer((_req, res) => {
      scrapes++;
      res.setHeader('Content-Type', 'text/plain; version=0.0.4');
      res.end(
        '# TYPE http_requests_total counter\n' +
          `http_requests_total{code="500",route="/pay"} ${scrapes * 5}\n` +
          'http_requests_total{code="200",route="/pay"} 7\n',
      );
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    prometheus = await startPrometheus({
      scrapeTargets: [`127.0.0.1:${(target.address() as AddressInfo).port}`],
      scrapeJob: 'shop',
      remoteWrite: { url: `${svc.url}/api/v1/write`, token },
    });
  });
  after(async () => {
    await prometheus?.stop();
    target?.close();
    await svc?.close();
  });

  it('declares the labels on first sight, breaks the samples down, and alerts on code 500 only', async () => {
    const dimension = await waitFor(
      'the metric declared on first sight',
      async () => {
        const res = await svc.request('GET', '/v1.0/dimensions/http_requests_total', { token });
        return res.status === 200 ? res.body : null;
      },
      60_000,
    );
    expect(dimension.keys).to.deep.equal(['code', 'route']);
    // A fleet policy names an event name some agent has sent.
    await waitFor(
      'the event definition made on first sight',
      async () => ((await svc.request('GET', '/v1.0/events', { token })).body as { event: string }[]).some((e) => e.event === 'http_requests_total') || null,
      60_000,
    );
    const policy = async (code: string) => {
      const res = await svc.request('POST', '/v1.0/policies', {
        token,
        body: {
          title: `code ${code}`,
          severity: 'warning',
          period: 'minute',
          event: 'http_requests_total',
          filter: { code },
          aggregate: 'sum',
          condition: 'gt',
          threshold: 0,
        },
      });
      expect(res.status, res.text).to.equal(201);
      return res.body.policy_id as string;
    };
    const on500 = await policy('500');
    const on200 = await policy('200');
    const alertsOf = async (policyId: string) =>
      ((await svc.request('GET', '/v1.0/alerts?limit=1000', { token })).body as AlertJson[]).filter((a) => a.policy_id === policyId);
    // A sum over non-negative increases breaches for good as soon as it passes 0: raised as the records land.
    const [alert] = await waitFor('the code-500 alert', async () => ((await alertsOf(on500)).length > 0 ? alertsOf(on500) : null), 60_000);
    expect(alert!.labels).to.deep.equal({});
    expect(alert!.value).to.be.greaterThan(0);
    // The code-200 series has records (increases of 0) and its policy raised nothing.
    const series = await waitFor(
      'both series stored',
      async () => {
        await svc.services.ingestor!.caughtUp();
        const rows = await queryRows<{ code: string; count: number; value: number }>(
          svc.stores.clickhouse,
          `SELECT labels['code'] AS code, toUInt64(sum(count)) AS count, sum(value) AS value FROM series_minute
           WHERE workspace_id = 'prom-fleet-ws' AND event = 'http_requests_total' GROUP BY code ORDER BY code`,
        );
        return rows.length === 2 && rows[0]!.count > 0 ? rows : null;
      },
      60_000,
    );
    expect(series.map((r) => r.code)).to.deep.equal(['200', '500']);
    expect(series[0]!.value).to.equal(0);
    expect(series[1]!.value).to.be.greaterThan(0);
    expect(await alertsOf(on200)).to.deep.equal([]);
  });
});
