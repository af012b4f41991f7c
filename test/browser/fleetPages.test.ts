// An event name across its agents in the console, in a real browser: the chart and table of the
// top agents, the ranked window comparison, declaring dimensions (with the backfill and the
// overflow shown in words), the breakdown by a declared key, and a fleet policy grouped by that
// key with a filter. Screenshots at a phone's and a desktop's size are saved for a person to
// look at (test-artifacts/screenshots/fleet-pages-*.png).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { browserSuiteHooks, launchBrowser, screenshotDir, type TestBrowser } from '../helpers/browser.js';
import { apiValuesShown, overflowPx, signIn, timesWithoutZone } from '../helpers/consolePage.js';
import { isoMinutesAgo, sendLogs } from '../helpers/logs.js';
import { startTestService, type TestService } from '../helpers/service.js';

const SIZES = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1440, height: 900 },
] as const;
const ZONE = 'Europe/Berlin';
const EVENT = 'api.latency_ms';
/** web-1 sends 6 records, web-2 5, … web-6 1: the top 5 leave web-6 out. */
const AGENTS = ['web-1', 'web-2', 'web-3', 'web-4', 'web-5', 'web-6'];

describe('console: an event name across its agents (Chromium)', function () {
  this.timeout(120_000);
  let svc: TestService;
  let browser: TestBrowser;
  let token: string;
  let page: Page;

  before(async () => {
    [svc, browser] = await Promise.all([
      startTestService({ env: { DIMENSION_MAX_SERIES: '12', EVAL_INTERVAL_MS: '250', EVAL_GRACE_MS: '0' } }),
      launchBrowser({ timezoneId: ZONE }),
    ]);
    token = await svc.tokenFor('console-fleet-pages-ws');
    const logs = AGENTS.flatMap((agent, i) =>
      Array.from({ length: AGENTS.length - i }, (_, j) => ({
        agent,
        event: EVENT,
        value: 10 * (i + 1) + j,
        occurred_at: isoMinutesAgo(j % 3),
        meta: { route: j % 2 === 0 ? '/checkout' : '/search', code: '200' },
      })),
    );
    await sendLogs(svc, token, logs);
    page = await browser.newPage();
    await signIn(page, svc.url, token);
  });
  browserSuiteHooks(
    () => browser,
    () => svc,
  );

  /** Saves the page at both sizes; each must fit the screen's width and show words, not API values, and times with their zone. */
  const shoot = async (what: string) => {
    mkdirSync(screenshotDir, { recursive: true });
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.waitForTimeout(200); // the chart follows its container's new width
      expect(await overflowPx(page), `${what} at ${size.name} width`).to.equal(0);
      await page.screenshot({ path: path.join(screenshotDir, `fleet-pages-${what}-${size.name}.png`), fullPage: true });
      // On a phone the page is long: each panel on its own too, at a size one can read.
      if (size.name === 'phone')
        for (const [i, panel] of (await page.locator('.panel').all()).entries())
          await panel.screenshot({ path: path.join(screenshotDir, `fleet-pages-${what}-phone-panel${i + 1}.png`) });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await apiValuesShown(page)).to.deep.equal([]);
    expect(await timesWithoutZone(page)).to.deep.equal([]);
  };
  const seriesRows = () => page.locator('table.series-table tbody tr');
  /** The text of each cell of a row. */
  const cells = (row: Locator) => row.locator('td').allTextContents();
  const rankedRows = () => page.locator('table.ranked-table tbody tr');

  it('shows the top agents of an event name in a chart and a table, and ranks them by how their windows compare', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Fleets' }).click();
    await page.getByRole('link', { name: new RegExp(`${EVENT.replace('.', '\\.')}\\s*6 agents`) }).click();
    await page.getByRole('heading', { name: 'Top 5 agents' }).waitFor();
    await seriesRows().nth(4).waitFor();
    expect(await seriesRows().count()).to.equal(5);
    expect((await cells(seriesRows().first())).slice(0, 2)).to.deep.equal(['web-1', '6']);
    expect(await page.locator('.series-table').textContent()).to.not.include('web-6');
    expect(await page.locator('.chart canvas').count()).to.be.at.least(1);
    expect(await page.locator('.chart-range').first().textContent()).to.include(ZONE);
    // Ten agents: all six.
    await page.getByLabel('Show the top').selectOption('10');
    await page.getByRole('heading', { name: 'Top 10 agents' }).waitFor();
    await seriesRows().nth(5).waitFor();

    await rankedRows().nth(5).waitFor();
    expect(await rankedRows().locator('td:first-child').allTextContents()).to.have.members(AGENTS);
    expect(await page.getByTestId('ranked-windows').textContent()).to.include(ZONE);
    await page.getByLabel('By', { exact: true }).selectOption({ label: 'Count now' });
    const firstRanked = async () => (await cells(rankedRows().first()))[0];
    for (let tries = 0; (await firstRanked()) !== 'web-1' && tries < 100; tries++) await page.waitForTimeout(100);
    expect(await firstRanked()).to.equal('web-1');
    await page.getByLabel('Show the top').selectOption('5');
    await shoot('agents');
  });

  it('declares dimensions, says when the backfill is complete, and breaks the numbers down by a declared key', async () => {
    // A key the API refuses is named in the form's error.
    await page.getByLabel('Meta keys to break down by').fill('route, bad key!');
    await page.getByRole('button', { name: 'Declare keys' }).click();
    await page.getByRole('alert').filter({ hasText: 'bad' }).waitFor();
    expect(await page.locator('.dimension-form .field-error').textContent()).to.include('“bad key!” must be');

    await page.getByLabel('Meta keys to break down by').fill('route, code');
    await page.getByRole('button', { name: 'Declare keys' }).click();
    await page.locator('[data-backfill="done"]').waitFor({ timeout: 60_000 });
    expect(await page.locator('[data-backfill="done"]').textContent()).to.match(/^Complete: the logs of .*\(Europe\/Berlin\)/);
    expect(await page.locator('[data-overflowing]').textContent()).to.include('Within the limit');

    await page.getByLabel('Break down by', { exact: true }).selectOption('route');
    await page.getByRole('heading', { name: 'Top 5 values of route' }).waitFor();
    await seriesRows().filter({ hasText: '/search' }).waitFor();
    // 21 records: j even (/checkout) 12 of them, odd (/search) 9.
    expect(await seriesRows().count()).to.equal(2);
    expect((await cells(seriesRows().nth(0))).slice(0, 2)).to.deep.equal(['/checkout', '12']);
    expect((await cells(seriesRows().nth(1))).slice(0, 2)).to.deep.equal(['/search', '9']);
    await shoot('dimensions');
  });

  it('makes a fleet policy grouped by a declared key, with a filter written as lines', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Policies' }).click();
    await page.getByRole('link', { name: 'New policy' }).click();
    await page.getByLabel('A fleet of agents').check();
    await page.getByLabel('Title').fill('Slow route');
    await page.getByLabel('Event name').selectOption({ label: `${EVENT} (6 agents)` });
    await page.getByLabel('Each route on its own').check();
    await page.getByLabel('Only records where').fill('code = 500 or 503\nagent = web-1');
    await page.getByLabel('Agents', { exact: true }).fill('web-*');
    await page.getByLabel('Period').selectOption('minute');
    await page.getByLabel('Aggregate').selectOption('max');
    await page.getByLabel('Condition').selectOption('gt');
    await page.getByLabel(/^Threshold/).fill('1000');
    await page.getByLabel('Severity').selectOption('error');
    await shoot('policy-form');
    await page.getByRole('button', { name: 'Create policy' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Slow route' });
    await row.waitFor();
    expect((await row.textContent())!.replace(/\s+/g, ' ')).to.include(`${EVENT}: agents web-* where code 500 or 503, agent web-1, each route on its own`);
    const policies = (await svc.request('GET', '/v1.0/policies', { token })).body as { title: string; filter: unknown; group_by: string[] }[];
    const made = policies.find((p) => p.title === 'Slow route');
    expect(made?.filter).to.deep.equal({ code: ['500', '503'], agent: 'web-1' });
    expect(made?.group_by).to.deep.equal(['route']);

    // A breaching record of /checkout raises that route's alert, its labels in the list and the details.
    await sendLogs(svc, token, [{ agent: 'web-1', event: EVENT, value: 5000, meta: { route: '/checkout', code: '500' } }]);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Alerts' }).click();
    const alertRow = page.getByRole('row').filter({ hasText: 'Slow route' }).filter({ hasText: 'triggered' });
    await alertRow.waitFor({ timeout: 30_000 });
    expect(await alertRow.textContent()).to.include('route="/checkout"');
    await alertRow.getByRole('link', { name: 'Slow route' }).click();
    const details = page.locator('dl.facts-list');
    await details.waitFor();
    expect(await details.textContent()).to.include('route="/checkout"');
    await shoot('alert');
  });

  it('shows that an event name has more series than it may keep, and counts the rest as other series', async () => {
    // DIMENSION_MAX_SERIES is 12 (the 6 agents' 11 series fit): twenty new routes of one agent overflow it.
    await sendLogs(
      svc,
      token,
      Array.from({ length: 20 }, (_, i) => ({ agent: 'web-1', event: EVENT, value: 1, meta: { route: `/new-${i}`, code: '500' } })),
    );
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Fleets' }).click();
    await page.locator('[data-overflowing="true"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-overflowing="true"]').textContent()).to.include('Too many series');
    await page.getByLabel('Break down by', { exact: true }).selectOption('route');
    await page.getByLabel('Show the top').selectOption('20');
    await page.locator('table.series-table').getByText('other series (over the limit)').waitFor({ timeout: 30_000 });
    await shoot('overflow');
  });
});
