// Fleet policies in the console, in a real browser: create a policy that watches an event name
// across agents, each agent on its own; a breaching record of one agent raises that agent's
// alert, shown with its labels in the list and the details. Screenshots at a phone's and a
// desktop's size are saved for a person to look at (test-artifacts/screenshots/).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { signIn } from '../helpers/consolePage.js';
import { browserSuiteHooks, launchBrowser, screenshotDir, type TestBrowser } from '../helpers/browser.js';
import { sendLogs } from '../helpers/logs.js';
import { startTestService, type TestService } from '../helpers/service.js';

const SIZES = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1440, height: 900 },
] as const;

describe('console: fleet policies (Chromium)', function () {
  this.timeout(90_000);
  let svc: TestService;
  let browser: TestBrowser;
  let token: string;
  let page: Page;

  before(async () => {
    [svc, browser] = await Promise.all([startTestService({ env: { EVAL_INTERVAL_MS: '250', EVAL_GRACE_MS: '0' } }), launchBrowser()]);
    token = await svc.tokenFor('console-fleet-ws');
    await sendLogs(
      svc,
      token,
      ['web-1', 'web-2', 'web-3'].map((agent) => ({ agent, event: 'api.latency_ms', value: 40 })),
    );
    page = await browser.newPage();
  });
  browserSuiteHooks(
    () => browser,
    () => svc,
  );

  const shoot = async (what: string) => {
    mkdirSync(screenshotDir, { recursive: true });
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.screenshot({ path: path.join(screenshotDir, `fleet-${what}-${size.name}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  it('creates a fleet policy grouped by agent and shows the alert of the agent that breaches, with its labels', async () => {
    await signIn(page, svc.url, token);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Policies' }).click();
    await page.getByRole('link', { name: 'New policy' }).click();
    // A policy on one definition shows no fleet field; a fleet policy no definition.
    expect(await page.getByLabel('Event name').count()).to.equal(0);
    await page.getByLabel('A fleet of agents').check();
    expect(await page.getByLabel('Event', { exact: true }).count()).to.equal(0);
    await page.getByLabel('Title').fill('Slow API agent');
    await page.getByLabel('Event name').selectOption({ label: 'api.latency_ms (3 agents)' });
    await page.getByLabel('Each agent on its own').check();
    await page.getByLabel('Agents', { exact: true }).fill('web-*');
    await page.getByLabel('Period').selectOption('minute');
    await page.getByLabel('Aggregate').selectOption('max');
    await page.getByLabel('Condition').selectOption('gt');
    await page.getByLabel(/^Threshold/).fill('1000');
    await page.getByLabel('Severity').selectOption('error');
    await shoot('form');
    await page.getByRole('button', { name: 'Create policy' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Slow API agent' });
    await row.waitFor();
    expect(await row.textContent()).to.include('api.latency_ms: agents web-*, each agent on its own');

    await sendLogs(svc, token, [{ agent: 'web-2', event: 'api.latency_ms', value: 5000 }]);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Alerts' }).click();
    const alertRow = page.getByRole('row').filter({ hasText: 'Slow API agent' }).filter({ hasText: 'triggered' });
    await alertRow.waitFor({ timeout: 30_000 });
    expect(await alertRow.textContent()).to.include('web-2 / api.latency_ms');
    expect(await page.getByRole('row').filter({ hasText: 'Slow API agent' }).count()).to.equal(1);
    await alertRow.getByRole('link', { name: 'Slow API agent' }).click();
    const details = page.locator('dl.facts-list');
    await details.waitFor();
    expect(await details.textContent()).to.include('agent="web-2"');
    await shoot('alerts');
  });
});
