// An escalation policy whose steps page whoever is on call, made in a real browser at a
// phone's 390×844 and a desktop's 1440×900: the step's schedules and people are picked by
// name (never an id), the list says in words whom each step pages, and what the API stores
// names the schedule and the person.
import { expect } from 'chai';
import { browserSuiteHooks, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { lookAt, signIn } from '../helpers/consolePage.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe('escalation steps paging the on-call, in the console (Chromium)', function () {
  this.timeout(300_000);
  let svc: TestService;
  let browser: TestBrowser;
  let token: string;
  let scheduleId: string;
  let leadId: string;

  before(async function () {
    this.timeout(600_000);
    [svc, browser] = await Promise.all([
      startTestService({
        env: { EVAL_INTERVAL_MS: '86400000', DELIVERY_POLL_INTERVAL_MS: '50', ESCALATION_MINUTE_MS: '100', ESCALATION_POLL_INTERVAL_MS: '50' },
      }),
      launchBrowser(),
    ]);
    token = await svc.tokenFor('escalation-oncall-browser-ws');
    const dest = (await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: 'https://example.com/pager' } })).body
      .destination_id;
    const person = async (name: string) => (await svc.request('POST', '/v1.0/people', { token, body: { name, destination_ids: [dest] } })).body.person_id;
    const ada = await person('Ada');
    leadId = await person('Lee the lead');
    const created = await svc.request('POST', '/v1.0/schedules', {
      token,
      body: {
        name: 'Payments',
        timezone: 'Europe/Berlin',
        layers: [{ name: 'primary', start: new Date().toISOString(), rotation: { type: 'weekly' }, members: [ada] }],
      },
    });
    expect(created.status, created.text).to.equal(201);
    scheduleId = created.body.schedule_id;
  });
  browserSuiteHooks(
    () => browser,
    () => svc,
  );

  for (const [width, height] of [
    [390, 844],
    [1440, 900],
  ] as const) {
    it(`makes a chain whose first step pages the on-call of a schedule and whose second adds a person, at ${width}×${height}`, async () => {
      const page = await browser.newPage();
      await page.setViewportSize({ width, height });
      await signIn(page, svc.url, token);
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Escalation' }).click();
      await page.getByRole('heading', { name: 'Escalation policies', level: 1 }).waitFor();

      const name = `Payments on call ${width}`;
      await page.getByLabel(/^Name/).fill(name);
      await page.getByLabel('Minutes after the alert triggered').fill('5');
      await page.getByRole('group', { name: 'Whoever is on call in (step 1)' }).getByLabel('Payments').check();
      await page.getByRole('button', { name: 'Add a step' }).click();
      await page.getByLabel('Minutes after the step before').fill('10');
      await page.getByRole('group', { name: 'Whoever is on call in (step 2)' }).getByLabel('Payments').check();
      await page.getByRole('group', { name: 'People (step 2)' }).getByLabel('Lee the lead').check();
      await page.getByRole('button', { name: 'Create escalation policy' }).click();
      await page.getByText('The escalation policy was created.').waitFor();

      const row = page.getByRole('row').filter({ hasText: name });
      const text = await row.textContent();
      expect(text).to.include('after 5 min: whoever is on call in Payments');
      expect(text).to.include('after 10 min: whoever is on call in Payments, Lee the lead');
      const stored = (await svc.request('GET', '/v1.0/escalation-policies', { token })).body.find((p: { name: string }) => p.name === name);
      expect(stored.steps).to.deep.equal([
        { after_minutes: 5, destination_ids: [], schedule_ids: [scheduleId], person_ids: [] },
        { after_minutes: 10, destination_ids: [], schedule_ids: [scheduleId], person_ids: [leadId] },
      ]);

      // What a person sees: no id or API value, nothing wider than the screen; and a screenshot of it.
      const shoot = (what: string) => lookAt(page, `escalation-oncall-${what}-${width}`, { zones: false });
      await shoot('form');

      // An alert of a policy naming it: the alert's history says whom each step paged, by name (a "minute" is 100 ms here).
      const event = await svc.request('POST', '/v1.0/events', { token, body: { agent: 'pay', event: `payments.${width}` } });
      const policy = await svc.request('POST', '/v1.0/policies', {
        token,
        body: {
          event_id: event.body.event_id,
          title: `No payments ${width}`,
          severity: 'critical',
          period: 'minute',
          aggregate: 'count',
          condition: 'lt',
          threshold: 1,
          escalation_policy_id: stored.escalation_policy_id,
        },
      });
      expect(policy.status, policy.text).to.equal(201);
      const evaluated = await svc.request('POST', `/v1.0/policies/${policy.body.policy_id}/evaluate`, { token, body: {} });
      expect(evaluated.status, evaluated.text).to.equal(200);
      const alert = evaluated.body.alert;
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Alerts' }).click();
      await page.getByRole('link', { name: `No payments ${width}` }).click();
      await page.getByText('escalation step 2 of 2, round 1: Ada (on call in Payments), Lee the lead').first().waitFor({ timeout: 30_000 });
      await page.getByText('escalation step 1 of 2, round 1: Ada (on call in Payments)').first().waitFor();
      expect(alert.status).to.equal('triggered');
      await shoot('history');
      await page.close();
    });
  }
});
