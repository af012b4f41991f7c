// A real Prometheus server (Debian's package) scrapes a small target this test serves and
// remote-writes to POST /api/v1/write: alertmon holds exactly the gauge values Prometheus stored, and its
// counter's increases. Skipped, saying why, where no prometheus binary is installed
// (.ci/run installs it).
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { prometheusBinary, startPrometheus } from '../../helpers/alertSenders.js';
import { queryRows } from '../../helpers/logs.js';
import { missingBinary, type RunningServer } from '../../helpers/realServers.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { describeInOneRun } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';

describeInOneRun('Prometheus remote-write from a real Prometheus server', function () {
  this.timeout(120_000);
  const binary = prometheusBinary();
  let svc: TestService;
  let target: Server;
  let prometheus: RunningServer | undefined;
  /** The target answers 503 once this is set: Prometheus then stores nothing more. */
  let stopped = false;

  before(async function () {
    if (binary === null) {
      console.log(missingBinary('prometheus', 'prometheus', 'PROMETHEUS_PATH'));
      this.skip();
    }
    svc = await startTestService();
    const token = await svc.tokenFor('prom-ws');
    let scrapes = 0;
    // Each scrape shows its own number as the gauge and three times it as the counter, so a
    // stored value says which scrape it came from.
    target = createServer((_req, res) => {
      if (stopped) {
        res.writeHead(503).end();
        return;
      }
      scrapes++;
      res.setHeader('Content-Type', 'text/plain; version=0.0.4');
      res.end(
        '# TYPE queue_depth gauge\n' +
          `queue_depth{queue="jobs"} ${scrapes}\n` +
          '# TYPE jobs_done_total counter\n' +
          `jobs_done_total{queue="jobs"} ${scrapes * 3}\n`,
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

  /** The samples Prometheus itself stored for a metric, oldest first. */
  async function storedByPrometheus(metric: string): Promise<number[]> {
    const response = await fetch(`${prometheus!.url}/api/v1/query?query=${encodeURIComponent(`${metric}[10m]`)}`);
    const body = (await response.json()) as { data: { result: { values: [number, string][] }[] } };
    return (body.data.result[0]?.values ?? []).map(([, value]) => Number(value));
  }

  it('stores exactly the gauge values and counter increases that Prometheus stored', async () => {
    const storedValues = async (event: string) => {
      await svc.services.ingestor!.caughtUp();
      const rows = await queryRows<{ value: number }>(
        svc.stores.clickhouse,
        `SELECT value FROM logs WHERE workspace_id = 'prom-ws' AND event = {event:String} ORDER BY occurred_at`,
        { event },
      );
      return rows.map((r) => r.value);
    };
    await waitFor('five scrapes written', async () => ((await storedValues('queue_depth')).length >= 5 ? true : null), 60_000);
    // Stop the target: what Prometheus holds from now on is final, and it sends on what is
    // still in its write-ahead log. (A scrape the target answered can still be missing from
    // both when Prometheus gave up on it under load: Prometheus's own store is the reference.)
    stopped = true;
    let gauges: number[] = [];
    let counters: number[] = [];
    await waitFor(
      'alertmon to hold every sample Prometheus stored',
      async () => {
        gauges = await storedByPrometheus('queue_depth');
        counters = await storedByPrometheus('jobs_done_total');
        const stored = await storedValues('queue_depth');
        return gauges.length >= 5 && stored.join() === gauges.join() ? true : null;
      },
      60_000,
    );
    const [agent] = await queryRows<{ agent: string; meta: string }>(
      svc.stores.clickhouse,
      `SELECT agent, meta FROM logs WHERE workspace_id = 'prom-ws' AND event = 'queue_depth' LIMIT 1`,
    );
    expect(agent!.agent).to.match(/^shop\/127\.0\.0\.1:\d+$/);
    expect(JSON.parse(agent!.meta)).to.deep.equal({ queue: 'jobs' });
    // The counter: the first sample only primes the series; then each sample is stored as its
    // increase over the one before.
    const increases = counters.slice(1).map((value, i) => value - counters[i]!);
    await waitFor('the counter increases', async () => ((await storedValues('jobs_done_total')).join() === increases.join() ? true : null), 30_000);
    const [day] = await queryRows<{ count: number; value: number }>(
      svc.stores.clickhouse,
      `SELECT sum(count) AS count, sum(value) AS value FROM rollups WHERE workspace_id = 'prom-ws' AND event = 'jobs_done_total' AND period = 'day'`,
    );
    expect(day).to.deep.equal({ count: increases.length, value: counters.at(-1)! - counters[0]! });
  });
});
