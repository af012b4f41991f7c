// The console as a person reads it, on a desktop (1440 × 900) and on a phone (390 × 844), in
// a workspace with a week of data in every list (consoleWorkspace.ts) and a browser whose own
// zone (America/New_York) is neither UTC nor the events' (Europe/Berlin): charts show sparse
// data as points and fit their range to the data; every page and tab, walked with data in it,
// shows words and no API value, names the zone of every time, asks for a key last in its forms,
// gives a finger choices of 24 px on the phone and fits the screen; the alert list's
// Acknowledge is within reach, and works, on the phone. Each state walked is saved as a
// screenshot under test-artifacts/screenshots/console-<width>/ (git-ignored) to be looked at.
import { expect } from 'chai';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { browserSuiteHooks, launchBrowser, screenshotDir, type TestBrowser } from '../helpers/browser.js';
import { expectWithinReach, pageProblems, seriesPixels } from '../helpers/consolePage.js';
import { SEEDED_SERVICE_ENV, seedConsoleWorkspace, type SeededWorkspace } from '../helpers/consoleWorkspace.js';
import { FakeHttpServer } from '../helpers/fakeProviders.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { waitFor } from '../helpers/waitFor.js';

const SIZES = [
  { name: 'desktop', width: 1440, height: 900 },
  // The phone last: it acknowledges the triggered alert, which the desktop's walk lists.
  { name: 'phone', width: 390, height: 844 },
] as const;

const DAY_S = 86_400;

describe('console at a desktop’s and a phone’s size (Chromium)', function () {
  this.timeout(300_000);
  let svc: TestService;
  let browser: TestBrowser;
  let sink: FakeHttpServer;
  let ws: SeededWorkspace;

  before(async function () {
    this.timeout(600_000);
    [svc, browser, sink] = await Promise.all([
      startTestService({ env: SEEDED_SERVICE_ENV }),
      launchBrowser({ timezoneId: 'America/New_York' }),
      FakeHttpServer.start(),
    ]);
    ws = await seedConsoleWorkspace(svc, sink, 'console-walk-ws');
  });
  browserSuiteHooks(
    () => browser,
    () => svc,
    () => sink,
  );

  for (const size of SIZES) {
    describe(`${size.name}, ${size.width} × ${size.height}`, () => {
      let page: Page;
      const shots = path.join(screenshotDir, `console-${size.width}`);
      let shot = 0;
      const problems: string[] = [];

      /** What a person sees now (pageProblems, collected to be reported together), and a screenshot of it. */
      const look = async (state: string) => {
        await page.screenshot({ path: path.join(shots, `${String(++shot).padStart(2, '0')}-${state}.png`), fullPage: true });
        for (const problem of await pageProblems(page)) problems.push(`${state}: ${problem}`);
      };
      const nav = (name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true }).click();

      before(async () => {
        rmSync(shots, { recursive: true, force: true });
        mkdirSync(shots, { recursive: true });
        page = await browser.newPage();
        await page.setViewportSize({ width: size.width, height: size.height });
      });
      after(async () => {
        await page?.close();
      });

      it('draws a minute series that arrives every 7 minutes as points, and fits the day chart to its nine days', async () => {
        await page.goto(`${svc.url}/`);
        await look('sign-in');
        await page.getByLabel('Workspace token').fill(ws.token);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.goto(`${svc.url}/#/events/${ws.latencyEventId}`);
        // 240 minute buckets 7 minutes apart, each alone between empty ones: no line can show them.
        await page.locator('.chart[data-buckets="240"] canvas').first().waitFor();
        const minutes = await waitFor('the points drawn', async () => {
          const drawn = await seriesPixels(page);
          return drawn.pixels > 1000 ? drawn : null;
        });
        // Points along the whole axis (the buckets span it), not a few at one end: the plot is
        // the canvas less the value axis (64 px) and a margin.
        expect(minutes.columns, JSON.stringify(minutes)).to.be.at.least(0.8 * (minutes.width - 80));
        const range = async () => [
          Number(await page.locator('.chart').getAttribute('data-range-from')),
          Number(await page.locator('.chart').getAttribute('data-range-to')),
        ];
        const [from, to] = await range();
        // From the oldest of the 240 buckets (27 hours and 57 minutes back) to now.
        expect((to! - from!) / 3600).to.be.within(27.5, 28.5);
        await look('event-minutes');

        await page.getByRole('button', { name: 'Days' }).click();
        await page.locator('.chart[data-buckets="10"]').waitFor();
        const [dayFrom, dayTo] = await range();
        // Nine days of logs touch ten local days: the axis spans them (not 90 days), and says so.
        expect((dayTo! - dayFrom!) / DAY_S).to.be.within(9, 10.5);
        expect(await page.locator('.chart-range').textContent()).to.match(/^Shown: .+ \(Europe\/Berlin\), (?:9|10) days\.$/);
        expect((await seriesPixels(page)).pixels).to.be.greaterThan(100);
        await look('event-days');
        await page.getByRole('button', { name: 'Hours' }).click();
        await page.locator('.chart[data-buckets="168"]').waitFor();
        await page.getByText(/newest hour buckets as a table/).click();
        await look('event-hours-table');

        // Three isolated minutes: three points, apart.
        await page.goto(`${svc.url}/#/events/${ws.sparseEventId}`);
        await page.locator('.chart[data-buckets="3"] canvas').first().waitFor();
        const three = await waitFor('three points', async () => {
          const drawn = await seriesPixels(page);
          return drawn.runs === 3 ? drawn : null;
        });
        expect(three.pixels).to.be.greaterThan(3 * 12);
        await look('event-sparse');
        expect(problems).to.deep.equal([]);
      });

      it('walks every page and tab with data in every list: words and no API value, every time with its zone, nothing wider than the screen', async () => {
        await nav('Policies');
        await page.getByRole('row').filter({ hasText: 'Checkout p95 high' }).waitFor();
        const policies = page.locator('table.policies');
        expect(await policies.textContent())
          .to.include('maximum > 500 per hour')
          .and.include('95th percentile (estimate) ≥ 300 per hour')
          .and.include('count change ≤ 100 % per hour, against the same hour a day earlier')
          .and.include('99th percentile (estimate) = 0 per minute');
        await look('policies');
        await page.getByRole('link', { name: 'Checkout p95 high' }).click();
        await page.getByRole('heading', { name: 'Edit policy: Checkout p95 high' }).waitFor();
        expect(await page.getByLabel('Condition').locator('option:checked').textContent()).to.equal('≥ at least');
        expect(await page.getByLabel('Aggregate').locator('option:checked').textContent()).to.equal('95th percentile (estimate)');
        expect(await page.getByLabel('Compare with').locator('option:checked').textContent()).to.equal('Nothing: judge the measure itself');
        await page.getByLabel('Over the last').selectOption('7');
        await page.getByRole('button', { name: 'Preview' }).click();
        await page.getByText(/alerts? over [\d,]+ buckets evaluated, from /).waitFor();
        await look('policy-edit-preview');
        await nav('Policies');
        await page.getByRole('link', { name: 'New policy' }).click();
        await page.getByRole('heading', { name: 'New policy' }).waitFor();
        // A new policy starts at the documented defaults, in words.
        expect(await page.getByLabel('Buckets without logs').locator('option:checked').textContent()).to.equal('Not judged');
        await look('policy-new');

        await nav('Alerts');
        await page.getByRole('row').filter({ hasText: ws.alertTitles.triggered }).waitFor();
        await look('alerts-all');
        for (const [status, title] of Object.entries(ws.alertTitles)) {
          await page.getByRole('navigation', { name: 'Alert status' }).getByRole('link', { name: status, exact: false }).click();
          const row = page.getByRole('row').filter({ hasText: title });
          await row.waitFor();
          await row.getByRole('link', { name: title }).click();
          const detail = page.getByRole('region', { name: title });
          await detail.locator('table.deliveries tbody tr').first().waitFor();
          expect(await detail.textContent()).to.match(/Raised[A-Z][a-z]{2} \d+, \d{4}, \d\d:\d\d \(Europe\/Berlin\)/);
          await look(`alerts-${status}`);
        }
        // The acknowledged alert's detail says its rule as the list does.
        await page.getByRole('navigation', { name: 'Alert status' }).getByRole('link', { name: 'Acknowledged' }).click();
        await page.getByRole('link', { name: ws.alertTitles.acknowledged }).click();
        const rule = page.getByRole('region', { name: ws.alertTitles.acknowledged }).locator('dt:text-is("Rule") + dd');
        expect(await rule.textContent()).to.equal('95th percentile (estimate) ≥ 300 per hour');

        await nav('Destinations');
        const webhook = page.getByRole('article', { name: /^webhook destination/ });
        await webhook.getByRole('button', { name: /^Send a test/ }).click();
        await webhook.locator('.test-outcome tbody tr').filter({ hasText: 'delivered' }).waitFor();
        expect(await webhook.locator('.test-outcome').textContent()).to.include('(America/New_York)');
        await look('destinations');
        await page.getByRole('link', { name: 'New destination' }).click();
        for (const channel of ['email', 'webhook', 'slack', 'discord', 'telegram']) {
          await page.getByLabel('Channel').selectOption(channel);
          await look(`destination-new-${channel}`);
        }

        await nav('Silences');
        const weekly = page.getByRole('row').filter({ hasText: 'Nightly maintenance' });
        expect(await weekly.textContent())
          .to.include('Monday to Friday, 02:00–03:00 (Europe/Berlin)')
          .and.include('(America/New_York)');
        await page.getByLabel('Only in a weekly window').check();
        await look('silences');

        await nav('Escalation');
        await page.getByRole('row').filter({ hasText: 'Night shift' }).waitFor();
        await look('escalation');

        expect(problems).to.deep.equal([]);
      });

      it(`has the alert list's Acknowledge within reach${size.name === 'phone' ? ', and acknowledges with it' : ''}`, async () => {
        await nav('Alerts');
        await page.getByRole('navigation', { name: 'Alert status' }).getByRole('link', { name: 'All' }).click();
        const acknowledge = page.getByRole('button', { name: `Acknowledge ${ws.alertTitles.triggered}` });
        await acknowledge.waitFor();
        await expectWithinReach(page, acknowledge);
        await expectWithinReach(page, page.getByRole('button', { name: `Resolve ${ws.alertTitles.triggered}` }));
        if (size.name !== 'phone') return;
        await acknowledge.click();
        // Said once, in words.
        await page
          .getByRole('status')
          .filter({ hasText: `${ws.alertTitles.triggered} is acknowledged.` })
          .waitFor();
        expect(await page.getByRole('status').filter({ hasText: ws.alertTitles.triggered }).textContent()).to.equal(
          `${ws.alertTitles.triggered} is acknowledged.`,
        );
        await page.getByRole('row').filter({ hasText: ws.alertTitles.triggered }).filter({ hasText: 'acknowledged' }).waitFor();
        const alerts = (await svc.request<{ title: string; status: string }[]>('GET', '/v1.0/alerts', { token: ws.token })).body;
        expect(alerts.find((a) => a.title === ws.alertTitles.triggered)?.status).to.equal('acknowledged');
        await look('alerts-acknowledged-from-the-phone');
        expect(problems).to.deep.equal([]);
      });
    });
  }
});
