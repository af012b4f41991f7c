// Time to the first drawn chart, on the console and on a share page, with 1,000 events in the
// workspace: printed, not asserted (timings belong to no pass/fail test; target under 1 s).
// Measured from the navigation's start to the chart code's first draw (a performance mark),
// so it holds the HTML, the scripts, the API reads and the drawing; the first load of each
// page is cold (nothing cached), the next ones are warm.
import { expect } from 'chai';
import os from 'node:os';
import { launchBrowser, timeToFirstChart, type TestBrowser } from '../helpers/browser.js';
import { sendLogs } from '../helpers/logs.js';
import { startTestService, type TestService } from '../helpers/service.js';

const EVENTS = 1000;
const LOADS = 3;

describe('time to the first chart (Chromium)', function () {
  this.timeout(120_000);
  let svc: TestService;
  let browser: TestBrowser;
  let token: string;

  before(async () => {
    [svc, browser] = await Promise.all([startTestService(), launchBrowser()]);
    token = await svc.tokenFor('first-chart-ws');
    // 1,000 events, each with an hour of minute buckets.
    const now = Date.now();
    const logs = Array.from({ length: EVENTS * 4 }, (_, i) => ({
      agent: 'fleet',
      event: `host-${String(i % EVENTS).padStart(4, '0')}.cpu_pct`,
      value: (i * 7) % 100,
      occurred_at: new Date(now - Math.floor(i / EVENTS) * 15 * 60_000).toISOString(),
    }));
    await sendLogs(svc, token, logs);
  });
  after(async () => {
    await browser?.close();
    await svc?.close();
  });

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const report = (what: string, ms: number[]) =>
    process.stdout.write(`    ${what}: ${ms.map((m) => `${Math.round(m)} ms`).join(', ')} (first, then again; median ${Math.round(median(ms))} ms)\n`);

  it(`prints it for the console and a share page with ${EVENTS} events`, async () => {
    const listed = await svc.request('GET', '/v1.0/events?limit=1000', { token });
    expect(listed.body).to.have.length(EVENTS);

    const page = await browser.newPage();
    // Signed in already: the token is in the tab's sessionStorage, as after pasting it once.
    await page.addInitScript(`sessionStorage.setItem('alertmon.token', ${JSON.stringify(token)})`);
    const consoleMs: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      await page.goto(`${svc.url}/`);
      consoleMs.push(await timeToFirstChart(page));
      expect(await page.locator('.item-list li').count()).to.equal(EVENTS);
    }

    const shared = await svc.request('PUT', `/v1.0/events/${listed.body[0].event_id}`, { token, body: { public: true } });
    const shareMs: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      await page.goto(`${svc.url}/share/events/${shared.body.event_id}?token=${shared.body.share_token}`);
      shareMs.push(await timeToFirstChart(page));
    }
    // Reference, same run: the API reads the console waits for before its first chart (the
    // event list, then the first event's minute rollups), timed from here, without a browser.
    const apiMs: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const started = performance.now();
      const [first] = (await svc.request('GET', '/v1.0/events?limit=1000&offset=0', { token })).body;
      await svc.request('GET', '/v1.0/events?limit=1000&offset=1000', { token });
      await svc.request('GET', `/v1.0/events/${first.event_id}/logs?period=minute&limit=240`, { token });
      apiMs.push(performance.now() - started);
    }
    const load = os.loadavg().map((l) => l.toFixed(2));
    process.stdout.write(`    load average ${load.join(' ')}\n`);
    report(`console, first chart (${EVENTS} events listed)`, consoleMs);
    report('share page, first chart', shareMs);
    report("reference: the console's API reads alone, no browser", apiMs);
  });
});
