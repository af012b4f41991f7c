// Drift where people edit (docs/as-code.md, Drift), in a real browser at a phone's 390×844 and
// a desktop's 1440×900: a policy, a person and a dimension declaration applied from a document
// say where they are edited that they are managed from a file; once changed through the API, the policy's form says it
// was changed here since the last apply (with that time and its zone) and that the next
// apply will overwrite it, and the person's still does not.
import { expect } from 'chai';
import { browserSuiteHooks, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { lookAt, signIn } from '../helpers/consolePage.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe('the notice on objects managed from a file (Chromium)', function () {
  this.timeout(300_000);
  let svc: TestService;
  let browser: TestBrowser;
  let token: string;
  let policyId: string;

  before(async function () {
    this.timeout(600_000);
    [svc, browser] = await Promise.all([startTestService(), launchBrowser()]);
    token = await svc.tokenFor('managed-browser-ws');
    await svc.request('POST', '/v1.0/events', { token, body: { event: 'checkout.latency_ms', agent: 'web' } });
    const applied = await svc.request('POST', '/v1.0/config/apply', {
      token,
      body: {
        version: 1,
        dimensions: [{ event: 'checkout.latency_ms', keys: ['route'] }],
        destinations: [{ key: 'pager', channel: 'webhook', url: 'https://example.com/pager' }],
        people: [{ key: 'ada', name: 'Ada Lovelace', destinations: ['pager'] }],
        policies: [
          {
            key: 'checkout-slow',
            title: 'Checkout is slow',
            event_definition: { agent: 'web', event: 'checkout.latency_ms' },
            period: 'minute',
            aggregate: 'average',
            condition: 'gt',
            threshold: 250,
            severity: 'warning',
          },
        ],
      },
    });
    expect(applied.status, applied.text).to.equal(200);
    policyId = ((await svc.request('GET', '/v1.0/policies', { token })).body as { policy_id: string }[])[0]!.policy_id;
  });
  browserSuiteHooks(
    () => browser,
    () => svc,
  );

  for (const [width, height] of [
    [390, 844],
    [1440, 900],
  ] as const) {
    it(`shows on the edit forms that an object is managed from a file, and when it drifted, at ${width}×${height}`, async () => {
      // Back to the document's threshold: each width starts with no drift.
      await svc.request('PUT', `/v1.0/policies/${policyId}`, { token, body: { threshold: 250 } });
      const again = await svc.request('POST', '/v1.0/config/apply', { token, body: (await svc.request('GET', '/v1.0/config', { token })).body });
      expect(again.status, again.text).to.equal(200);

      const page = await browser.newPage();
      await page.setViewportSize({ width, height });
      await signIn(page, svc.url, token);
      await page.goto(`${svc.url}/#/policies/${policyId}`);
      await page.getByRole('heading', { name: 'Edit policy: Checkout is slow', level: 1 }).waitFor();
      const note = page.getByRole('note');
      await note.waitFor();
      expect(await note.textContent()).to.match(
        /^Managed from a file, applied on .+ \([A-Za-z_/]+\): a change made here lasts until the next apply of the file\.$/,
      );
      await lookAt(page, `managed-${width}-policy-applied`);

      // A change made through the API, as the console's own Save makes it.
      const put = await svc.request('PUT', `/v1.0/policies/${policyId}`, { token, body: { threshold: 300 } });
      expect(put.status, put.text).to.equal(200);
      await page.reload();
      await page.getByRole('heading', { name: 'Edit policy: Checkout is slow', level: 1 }).waitFor();
      await page.getByRole('note').filter({ hasText: 'changed here' }).waitFor();
      const text = await page.getByRole('note').textContent();
      expect(text).to.match(/^Managed from a file: changed here since the last apply on .+ \([A-Za-z_/]+\); the next apply will overwrite it\.$/);
      await lookAt(page, `managed-${width}-policy-drifted`);

      // The person was not changed: applied, no drift.
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'People' }).click();
      await page.getByRole('button', { name: 'Edit Ada Lovelace' }).click();
      await page.getByRole('heading', { name: 'Edit Ada Lovelace', level: 2 }).waitFor();
      await page.getByRole('note').waitFor();
      expect(await page.getByRole('note').textContent()).to.match(/^Managed from a file, applied on /);
      await lookAt(page, `managed-${width}-person-applied`);

      // The document's dimension declaration: its panel on the fleet page says so too.
      await page.goto(`${svc.url}/#/fleets/checkout.latency_ms`);
      const dimensionNote = page.getByRole('region', { name: 'Dimensions' }).getByRole('note');
      await dimensionNote.waitFor();
      expect(await dimensionNote.textContent()).to.match(
        /^Managed from a file, applied on .+ \([A-Za-z_/]+\): a change made here lasts until the next apply of the file\.$/,
      );
      await dimensionNote.scrollIntoViewIfNeeded();
      await lookAt(page, `managed-${width}-dimension-applied`);
      await page.close();
    });
  }
});
