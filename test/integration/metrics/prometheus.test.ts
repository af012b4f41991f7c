// A real Prometheus server (Debian's package) scrapes a small target this test serves and
// remote-writes to POST /api/v1/write: the rollups hold the target's gauge values and its
// counter's increases. Skipped, saying why, where no prometheus binary is installed
// (.ci/run installs it).
import { expect } from 'chai';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { queryRows } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

function prometheusBinary(): string | null {
  const candidate = process.env.PROMETHEUS_PATH ?? 'prometheus';
  try {
    execFileSync(candidate, ['--version'], { stdio: 'ignore' });
    return candidate;
  } catch {
    return null;
  }
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

describe('Prometheus remote-write from a real Prometheus server', function () {
  this.timeout(120_000);
  const binary = prometheusBinary();
  let svc: TestService;
  let target: Server;
  let prometheus: ChildProcess | undefined;
  let dir: string;
  /** What the target shows: a gauge that changes on each scrape and a counter that grows. */
  const shown = { gauge: [] as number[], counter: [] as number[] };

  before(async function () {
    if (binary === null) {
      console.log('    (skipped: no prometheus binary; install Debian\'s "prometheus" package or set PROMETHEUS_PATH)');
      this.skip();
    }
    svc = await startTestService();
    const token = await svc.tokenFor('prom-ws');
    let scrapes = 0;
    target = createServer((_req, res) => {
      scrapes++;
      const gauge = 10 + (scrapes % 5);
      const counter = scrapes * 3;
      shown.gauge.push(gauge);
      shown.counter.push(counter);
      res.setHeader('Content-Type', 'text/plain; version=0.0.4');
      res.end(
        '# TYPE queue_depth gauge\n' +
          `queue_depth{queue="jobs"} ${gauge}\n` +
          '# TYPE jobs_done_total counter\n' +
          `jobs_done_total{queue="jobs"} ${counter}\n`,
      );
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    dir = await mkdtemp(path.join(tmpdir(), 'alertmon-prometheus-'));
    const config = [
      'global:',
      '  scrape_interval: 1s',
      'scrape_configs:',
      '  - job_name: shop',
      '    static_configs:',
      `      - targets: ['127.0.0.1:${(target.address() as AddressInfo).port}']`,
      'remote_write:',
      `  - url: ${svc.url}/api/v1/write`,
      '    authorization:',
      `      credentials: ${token}`,
      '    queue_config:',
      '      batch_send_deadline: 1s',
      '',
    ].join('\n');
    await writeFile(path.join(dir, 'prometheus.yml'), config);
    prometheus = spawn(
      binary!,
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${await freePort()}`,
      ],
      { stdio: 'ignore' },
    );
  });
  after(async () => {
    prometheus?.kill('SIGTERM');
    target?.close();
    await svc?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('stores the gauge values and the counter increases the target showed', async () => {
    const totals = async (event: string) => {
      await svc.services.ingestor!.caughtUp();
      const [row] = await queryRows<{ count: number; value: number }>(
        svc.stores.clickhouse,
        `SELECT sum(count) AS count, sum(value) AS value FROM rollups WHERE workspace_id = 'prom-ws' AND event = {event:String} AND period = 'day'`,
        { event },
      );
      return row!;
    };
    // Wait until several scrapes have been written.
    await waitFor('five scrapes written', async () => ((await totals('queue_depth')).count >= 5 ? true : null), 60_000);
    prometheus!.kill('SIGTERM');
    await new Promise((resolve) => prometheus!.once('exit', resolve));
    const gauges = await totals('queue_depth');
    const counters = await totals('jobs_done_total');
    // Every sample Prometheus wrote is a scrape the target answered: gauge values are some of
    // those shown, in order; the counter's increases add up to its last value written minus its first.
    expect(gauges.count).to.be.at.least(5);
    const [agent] = await queryRows<{ agent: string; meta: string }>(
      svc.stores.clickhouse,
      `SELECT agent, meta FROM logs WHERE workspace_id = 'prom-ws' AND event = 'queue_depth' LIMIT 1`,
    );
    expect(agent!.agent).to.match(/^shop\/127\.0\.0\.1:\d+$/);
    expect(JSON.parse(agent!.meta)).to.deep.equal({ queue: 'jobs' });
    const written = await queryRows<{ value: number }>(
      svc.stores.clickhouse,
      `SELECT value FROM logs WHERE workspace_id = 'prom-ws' AND event = 'queue_depth' ORDER BY occurred_at`,
    );
    const values = written.map((r) => r.value);
    // The gauge values are a run of consecutive scrapes (each 10 + scrape % 5).
    const start = shown.gauge.findIndex((_, i) => values.every((v, j) => shown.gauge[i + j] === v));
    expect(start, `gauges ${values} within ${shown.gauge}`).to.be.at.least(0);
    // The counter: each scrape adds 3; the first sample written only primes the series.
    expect(counters.value).to.equal((gauges.count - 1) * 3);
    expect(counters.count).to.equal(gauges.count - 1);
  });
});
