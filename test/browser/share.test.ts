// The share page in a real browser: its chart is drawn from the event's live data, refreshes
// itself, and a wrong token shows the not-found page. The console hands out the link at the
// service's PUBLIC_URL (set here to an address this test never opens).
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { launchBrowser, timeToFirstChart, type TestBrowser } from '../helpers/browser.js';
import { sendLogs } from '../helpers/logs.js';
import { startTestService, type TestService } from '../helpers/service.js';

const PUBLIC_URL = 'https://status.example.com';

describe('share page (Chromium)', function () {
  this.timeout(90_000);
  let svc: TestService;
  let browser: TestBrowser;
  let token: string;
  let shared: { event_id: string; share_token: string };

  before(async () => {
    [svc, browser] = await Promise.all([startTestService({ env: { PUBLIC_URL: PUBLIC_URL } }), launchBrowser()]);
    token = await svc.tokenFor('share-browser-ws');
    const created = await svc.request('POST', '/v1.0/events', {
      token,
      body: { event: 'queue.depth', agent: 'worker-1', title: 'Queue depth', unit: 'jobs', public: true },
    });
    shared = created.body;
    const now = Date.now();
    await sendLogs(
      svc,
      token,
      [3, 2, 1].map((minutesAgo) => ({
        agent: 'worker-1',
        event: 'queue.depth',
        value: 10 * minutesAgo,
        occurred_at: new Date(now - minutesAgo * 60_000).toISOString(),
      })),
    );
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed')
      process.stdout.write(`    screenshots: ${(await browser.screenshots(this.currentTest.fullTitle())).join(', ')}\n`);
    for (const page of browser.context.pages()) await page.close();
  });
  after(async () => {
    await browser?.close();
    await svc?.close();
  });

  const summary = (page: Page) => page.locator('.summary').textContent();

  it('draws the chart of the live data, switches bucket size, and refreshes itself', async () => {
    const page = await browser.newPage();
    const response = await page.goto(`${svc.url}/share/events/${shared.event_id}?token=${shared.share_token}`);
    expect(response?.status()).to.equal(200);
    expect(await page.title()).to.equal('Queue depth');
    await timeToFirstChart(page);
    expect(await page.locator('.chart canvas').count()).to.be.greaterThan(0);
    expect(await page.locator('h1').textContent()).to.equal('Queue depth');
    // The newest minute holds the log of a minute ago: 10 jobs.
    expect(await summary(page)).to.match(/^Latest minute, .+ \(UTC\): average 10 jobs over 1 log\.$/);

    await page.getByRole('button', { name: 'Hours' }).click();
    expect(await page.getByRole('button', { name: 'Hours' }).getAttribute('aria-pressed')).to.equal('true');
    await page.getByRole('button', { name: 'Minutes' }).click();

    // A log sent now shows up at the next refresh (every 10 s), without a reload.
    await sendLogs(svc, token, [{ agent: 'worker-1', event: 'queue.depth', value: 99, occurred_at: new Date().toISOString() }]);
    await page.locator('.summary', { hasText: /average 99 jobs over 1 log\./ }).waitFor({ timeout: 30_000 });
  });

  it('shows the not-found page for a wrong token, and once the link is replaced', async () => {
    const page = await browser.newPage();
    const wrong = await page.goto(`${svc.url}/share/events/${shared.event_id}?token=${shared.share_token.slice(1)}`);
    expect(wrong?.status()).to.equal(404);
    expect(await page.title()).to.equal('Link not found');
    expect(await page.locator('body').textContent()).to.not.include('Queue depth');
    expect(await page.locator('canvas').count()).to.equal(0);

    // An open page whose link is replaced says so at its next refresh.
    const open = await browser.newPage();
    await open.goto(`${svc.url}/share/events/${shared.event_id}?token=${shared.share_token}`);
    await timeToFirstChart(open);
    const rotated = await svc.request('POST', `/v1.0/events/${shared.event_id}/share-token`, { token });
    expect(rotated.status).to.equal(200);
    await open.getByRole('alert').filter({ hasText: 'This share link no longer works' }).waitFor({ timeout: 30_000 });
  });

  it('shows in the console the share link at PUBLIC_URL, not at the address the console was opened at', async () => {
    const page = await browser.newPage();
    await page.addInitScript(`sessionStorage.setItem('alertmon.token', ${JSON.stringify(token)})`);
    await page.goto(`${svc.url}/#/events/${shared.event_id}`);
    const field = page.getByLabel(/Anyone with this link/);
    await field.waitFor();
    // The token as it is now (a test above replaced it).
    const { share_token } = (await svc.request('GET', `/v1.0/events/${shared.event_id}`, { token })).body;
    expect(await field.inputValue()).to.equal(`${PUBLIC_URL}/share/events/${shared.event_id}?token=${share_token}`);
    expect(await page.getByRole('link', { name: 'Open the share page' }).getAttribute('href')).to.equal(await field.inputValue());
  });
});
