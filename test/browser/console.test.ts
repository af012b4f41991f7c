// The web console in a real browser, as a person uses it: paste a token, read an event's
// chart, create a webhook destination and test it, create a policy, see the alert that
// breaching logs raise, acknowledge and resolve it, and read its delivery history. The steps
// run in order on one page, like a session.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { browserSuiteHooks, launchBrowser, timeToFirstChart, type TestBrowser } from '../helpers/browser.js';
import { FakeHttpServer } from '../helpers/fakeProviders.js';
import { eventIdOf, sendLogs } from '../helpers/logs.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe('console (Chromium)', function () {
  this.timeout(90_000);
  let svc: TestService;
  let browser: TestBrowser;
  let sink: FakeHttpServer;
  let token: string;
  let page: Page;
  let logTimes: number[];
  const hourStart = (ms: number) => ms - (ms % 3_600_000);

  before(async () => {
    [svc, browser, sink] = await Promise.all([
      startTestService({ env: { EVAL_INTERVAL_MS: '250', EVAL_GRACE_MS: '0', ALLOW_PRIVATE_TARGETS: '1', DELIVERY_POLL_INTERVAL_MS: '50' } }),
      launchBrowser(),
      FakeHttpServer.start(),
    ]);
    token = await svc.tokenFor('console-browser-ws');
    const now = Date.now();
    logTimes = [4, 3, 2].map((minutesAgo) => now - minutesAgo * 60_000);
    await sendLogs(svc, token, [
      ...logTimes.map((time, i) => ({
        agent: 'shop',
        event: 'checkout.latency_ms',
        value: 104 - i,
        occurred_at: new Date(time).toISOString(),
      })),
      { agent: 'shop', event: 'orders.placed', value: 1 },
    ]);
    page = await browser.newPage();
  });
  browserSuiteHooks(
    () => browser,
    () => svc,
    () => sink,
  );

  const nav = (name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name }).click();

  it('signs in with a pasted token, kept in the tab and out of the URL, and shows an event chart', async () => {
    await page.goto(`${svc.url}/`);
    await page.getByLabel('Workspace token').fill('chp_not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('This token is not valid for any workspace.').waitFor();

    await page.getByLabel('Workspace token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
    expect(page.url()).to.not.include(token);
    expect(await page.evaluate("sessionStorage.getItem('alertmon.token')")).to.equal(token);
    expect(await page.evaluate('localStorage.length')).to.equal(0);

    await page.getByRole('link', { name: /shop \/ checkout\.latency_ms/ }).click();
    await page.getByRole('heading', { name: 'checkout.latency_ms', level: 2 }).waitFor();
    // Three minutes of logs: three buckets drawn.
    await page.locator('.chart[data-buckets="3"] canvas').first().waitFor();
    await timeToFirstChart(page);
    await page.getByText('The 3 newest minute buckets as a table').click();
    expect(await page.locator('details table tbody tr').count()).to.equal(3);
    // The ten window comparisons, side by side, each as the analytics API answers it. Which
    // window holds the three logs depends on the clock: in an hour's first minutes this hour
    // holds some of them or none, and the previous hour's window (the same elapsed span)
    // none, so the expected figures are the API's.
    await page.locator('.comparison table').first().waitFor();
    expect(await page.locator('.comparison').count()).to.equal(10);
    const thisHour = page.getByRole('article', { name: 'This hour vs the previous hour' });
    const eventId = await eventIdOf(svc, token, 'shop', 'checkout.latency_ms');
    const answer = await svc.request('GET', `/v1.0/events/${eventId}/analytics?view=window&period=1h&previous=previous_window`, { token });
    expect(answer.status, answer.text).to.equal(200);
    const data = answer.body.data as { current_count: number; previous_count: number } | null;
    if (data === null) await thisHour.getByText('No logs in either window.').waitFor();
    else expect(await thisHour.getByRole('row', { name: /^Count/ }).textContent()).to.match(new RegExp(`^Count${data.current_count}${data.previous_count}`));
    if (logTimes.every((t) => t >= hourStart(Date.now()))) expect(data).to.include({ current_count: 3, previous_count: 0 });
  });

  it('creates a webhook destination, with validation errors next to the fields, and tests it', async () => {
    await nav('Destinations');
    await page.getByRole('link', { name: 'New destination' }).click();
    await page.getByLabel('Channel').selectOption('webhook');
    await page.getByLabel('Target URL').fill('not a url');
    // The grouping and template fields come from the OpenAPI document; a template naming an unknown variable is refused beside its field.
    await page.getByLabel('Group window (seconds)').waitFor();
    await page.getByLabel('Body template').waitFor();
    await page.getByLabel('Title template').fill('{{severity}}: {{alert.titel}}');
    await page.getByRole('button', { name: 'Create destination' }).click();
    const urlError = page.locator('#destination-url-error');
    await urlError.waitFor();
    expect(await urlError.textContent()).to.equal('must be an absolute http:// or https:// URL');
    expect(await page.getByLabel('Target URL').getAttribute('aria-describedby')).to.include('destination-url-error');
    expect(await page.locator('#destination-title_template-error').textContent()).to.match(/unknown variable "alert.titel"/);

    await page.getByLabel('Title template').fill('{{severity}}: {{alert.title}}');
    await page.getByLabel('Target URL').fill(`${sink.origin}/hook`);
    await page.getByRole('button', { name: 'Create destination' }).click();
    await page.getByText('The webhook destination was created.').waitFor();

    await page.getByRole('button', { name: /^Send a test to the webhook destination/ }).click();
    const outcome = page.locator('.test-outcome');
    await outcome.getByText('Sent: the provider accepted the test notification.').waitFor();
    await outcome.locator('tbody tr').filter({ hasText: 'delivered' }).filter({ hasText: '200' }).waitFor();
    expect(sink.requests.map((r) => r.json?.type)).to.deep.equal(['test']);
    expect(sink.requests[0]!.json.title).to.equal('info: Test notification');
  });

  it('creates a policy, shows the alert that breaching logs raise, acknowledges and resolves it, with its delivery history', async () => {
    await nav('Policies');
    await page.getByRole('link', { name: 'New policy' }).click();
    await page.getByLabel('Title').fill('Checkout too slow');
    await page.getByLabel('Event').selectOption({ label: 'checkout.latency_ms (shop / checkout.latency_ms)' });
    await page.getByLabel('Period').selectOption('minute');
    await page.getByLabel('Aggregate').selectOption('max');
    await page.getByLabel('Condition').selectOption('gt');
    await page.getByLabel(/^Threshold/).fill('1000');
    await page.getByLabel('Severity').selectOption('critical');
    // A rule option from the API's schema, and the preview on history before creating.
    await page.getByLabel('Breaching buckets in a row').fill('1');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByText(/^0 alerts over [\d,]+ buckets evaluated, from .+ \(UTC\) to .+ \(UTC\)\.$/).waitFor();
    await page.getByRole('button', { name: 'Create policy' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Checkout too slow' });
    await row.waitFor();
    expect(await row.textContent())
      .to.include('maximum > 1,000 per minute')
      .and.include('enabled');

    // A breaching log: the open minute's max can only grow, so the worker raises at once.
    await sendLogs(svc, token, [{ agent: 'shop', event: 'checkout.latency_ms', value: 5000 }]);
    await sink.waitForRequests(2);
    await nav('Alerts');
    const alertRow = page.getByRole('row').filter({ hasText: 'Checkout too slow' });
    await alertRow.filter({ hasText: 'triggered' }).waitFor();
    expect(await alertRow.textContent())
      .to.include('5,000')
      .and.include('critical');

    await alertRow.getByRole('link', { name: 'Checkout too slow' }).click();
    const history = page.locator('table.deliveries');
    await history.locator('tbody tr').filter({ hasText: 'alert raised' }).filter({ hasText: 'delivered' }).waitFor();

    await page.getByRole('button', { name: 'Acknowledge Checkout too slow' }).click();
    await alertRow.filter({ hasText: 'acknowledged' }).waitFor();
    await page.getByRole('button', { name: 'Resolve Checkout too slow' }).click();
    await alertRow.filter({ hasText: 'resolved' }).waitFor();
    expect(await alertRow.getByRole('button').allTextContents()).to.deep.equal(['Archive']);
    // Resolving notifies: the history shows that delivery too.
    await sink.waitForRequests(3);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await history.locator('tbody tr').filter({ hasText: 'alert resolved' }).filter({ hasText: 'delivered' }).waitFor();
  });
});
