// Alert sources in a real browser, at a phone's 390×844 and a desktop's 1440×900: add a
// source with an inhibition rule through the form, see its Prometheus and vmalert
// configuration with its URL and a token placeholder (the URL takes a real post), see a
// received alert in the list with its source (no rule, no value) and its annotations, and a
// silence's matchers in the silences list.
import { expect } from 'chai';
import { browserSuiteHooks, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { lookAt, signIn } from '../helpers/consolePage.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe('alert sources in the console (Chromium)', function () {
  this.timeout(300_000);
  let svc: TestService;
  let browser: TestBrowser;
  let token: string;

  before(async function () {
    this.timeout(600_000);
    [svc, browser] = await Promise.all([startTestService(), launchBrowser()]);
    token = await svc.tokenFor('am-console-ws');
    const silence = await svc.request('POST', '/v1.0/silences', {
      token,
      body: { matchers: ['alertname="DiskFull"', 'instance=~"db-.*"'], ends_at: new Date(Date.now() + 3_600_000).toISOString(), comment: 'resizing' },
    });
    expect(silence.status, silence.text).to.equal(201);
  });
  browserSuiteHooks(
    () => browser,
    () => svc,
  );

  for (const [width, height] of [
    [390, 844],
    [1440, 900],
  ] as const) {
    it(`adds a source, shows its sender configuration, a received alert's annotations and matcher silences at ${width}×${height}`, async () => {
      const page = await browser.newPage();
      await page.setViewportSize({ width, height });
      await signIn(page, svc.url, token);
      const nav = (name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name }).click();

      await nav('Alert sources');
      await page.getByRole('heading', { name: 'Alert sources', level: 1 }).waitFor();
      const name = `Prometheus ${width}`;
      await page.getByLabel('Name', { exact: false }).first().fill(name);
      await page.getByLabel(/^Resolve after/).fill('10');
      // The inhibition rule as a person writes it: a matcher a line, blank lines left as typed.
      await page.getByRole('button', { name: 'Add an inhibition rule' }).click();
      const rule = page.getByRole('group', { name: 'Rule 1' });
      await rule.getByLabel(/^While an alert matching/).fill('alertname="NodeDown"\n');
      await rule.getByLabel(/^do not notify the alerts matching/).fill('severity warning');
      await rule.getByLabel(/^that have the same values/).fill('instance');
      await page.getByRole('button', { name: 'Add alert source' }).click();
      // A matcher that does not parse is named, and nothing is added.
      await page.getByText('"severity warning": bad matcher format').waitFor();
      await lookAt(page, `alert-sources-rule-${width}`);
      expect(((await svc.request('GET', '/v1.0/alert-sources', { token })).body as { name: string }[]).map((s) => s.name)).to.not.include(name);
      await rule.getByLabel(/^do not notify the alerts matching/).fill('severity="warning"');
      await page.getByRole('button', { name: 'Add alert source' }).click();
      await page.getByText(`${name} was added: its sender configuration is below.`).waitFor();
      const row = page.getByRole('row').filter({ hasText: name });
      expect(await row.textContent()).to.include('10 min without a post');
      expect(await row.textContent()).to.include('alertname="NodeDown" mutes severity="warning" with the same instance');

      // The configuration to paste: the source's URL and a placeholder for the token.
      const sources = (await svc.request('GET', '/v1.0/alert-sources', { token })).body as { alert_source_id: string; name: string; inhibit_rules: unknown }[];
      const id = sources.find((s) => s.name === name)!.alert_source_id;
      expect(sources.find((s) => s.name === name)!.inhibit_rules).to.deep.equal([
        { source_matchers: ['alertname="NodeDown"'], target_matchers: ['severity="warning"'], equal: ['instance'] },
      ]);
      await page.getByRole('heading', { name: `Send alerts to ${name}` }).waitFor();
      const snippets = await page.locator('.snippet pre').allTextContents();
      expect(snippets.join('\n')).to.include(`path_prefix: /alertmanager/${id}`);
      expect(snippets.join('\n')).to.include(`-notifier.url=${svc.url}/alertmanager/${id}`);
      expect(snippets.join('\n')).to.include('credentials: <workspace token>');
      expect(snippets.join('\n')).to.not.include(token);
      await lookAt(page, `alert-sources-sources-${width}`, { apiValues: false });

      // What the snippet names takes a post; the alert shows its annotations.
      const labels = { alertname: `DiskFull${width}`, instance: 'web-1' };
      const posted = await svc.request('POST', `/alertmanager/${id}/api/v2/alerts`, {
        token,
        body: [
          {
            labels,
            annotations: { summary: `Disk full on web-1 (${width})`, description: 'Only 2% of /var is free.' },
            generatorURL: 'http://prom:9090/graph',
          },
        ],
      });
      expect(posted.status, posted.text).to.equal(200);
      await nav('Alerts');
      await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
      // Its row in the list: the source in place of a rule, no value (it has none).
      const listed = page.getByRole('row').filter({ hasText: `Disk full on web-1 (${width})` });
      await listed.getByText(name, { exact: true }).waitFor();
      expect(await listed.locator('td[data-label="Source"]').textContent()).to.equal(name);
      expect(await listed.textContent()).to.not.include('– per');
      expect(await listed.textContent()).to.not.include('no data');
      if (width <= 720) expect(await listed.locator('td[data-label="Value"]').isHidden(), 'no Value on the card').to.equal(true);
      await page.getByText(`Disk full on web-1 (${width})`).first().click();
      const detail = page.getByRole('region', { name: `Disk full on web-1 (${width})` });
      await detail.getByText('Only 2% of /var is free.').waitFor();
      expect(await detail.textContent()).to.include('description');
      await detail.getByRole('link', { name: "Open the rule's query in the sender" }).waitFor();
      await lookAt(page, `alert-sources-alert-${width}`, { apiValues: false });

      // Silences by matchers say what they cover.
      await nav('Silences');
      await page.getByRole('heading', { name: 'Silences', level: 1 }).waitFor();
      await page.getByRole('row').filter({ hasText: 'resizing' }).getByText('Every alert matching alertname="DiskFull", instance=~"db-.*"').waitFor();
      await lookAt(page, `alert-sources-silences-${width}`, { apiValues: false });

      // Removing the source resolves its alerts.
      await nav('Alert sources');
      await page.getByRole('button', { name: `Remove ${name}` }).click();
      await page.getByText(`${name} was removed; its open alerts were resolved.`).waitFor();
      await page.close();
    });
  }
});
