// Escalation and acknowledging from the message, in a real browser as a person does it:
// create an escalation policy in the console, attach it to a policy, raise an alert, open
// the acknowledge link from the webhook body, press the button, and see the alert
// acknowledged in the console, with each escalation step (its number and round) in the
// alert's delivery history. An escalation "minute" is 100 ms here, so the chain runs in a second.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { browserSuiteHooks, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { signIn } from '../helpers/consolePage.js';
import { FakeHttpServer } from '../helpers/fakeProviders.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { waitFor } from '../helpers/waitFor.js';

const ESCALATION_MINUTE_MS = 100;

describe('escalation and acknowledge links (Chromium)', function () {
  this.timeout(300_000);
  let svc: TestService;
  let browser: TestBrowser;
  let sink: FakeHttpServer;
  let token: string;
  let page: Page;

  before(async function () {
    // Starting the service and Chromium together can take minutes on a loaded machine.
    this.timeout(600_000);
    [svc, browser, sink] = await Promise.all([
      startTestService({
        env: {
          EVAL_INTERVAL_MS: '86400000',
          ALLOW_PRIVATE_TARGETS: '1',
          DELIVERY_POLL_INTERVAL_MS: '50',
          ESCALATION_MINUTE_MS: String(ESCALATION_MINUTE_MS),
          ESCALATION_POLL_INTERVAL_MS: '50',
        },
      }),
      launchBrowser(),
      FakeHttpServer.start(),
    ]);
    token = await svc.tokenFor('escalation-browser-ws');
    expect((await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: `${sink.origin}/hook` } })).status).to.equal(201);
    expect((await svc.request('POST', '/v1.0/events', { token, body: { agent: 'shop', event: 'orders.placed' } })).status).to.equal(201);
    page = await browser.newPage();
  });
  browserSuiteHooks(
    () => browser,
    () => svc,
    () => sink,
  );

  const nav = (name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name }).click();

  it('walks from an escalation policy made in the console to an alert acknowledged from its webhook link', async () => {
    await signIn(page, svc.url, token);

    // The escalation policy: a name, one step after 5 minutes to the webhook, once more after that.
    await nav('Escalation');
    await page.getByRole('heading', { name: 'Escalation policies', level: 1 }).waitFor();
    await page.getByLabel(/^Name/).fill('Night shift');
    await page.getByLabel('Minutes after the alert triggered').fill('5');
    await page.getByLabel(/^webhook:/).check();
    await page.getByLabel(/^Repeat/).fill('1');
    await page.getByRole('button', { name: 'Create escalation policy' }).click();
    await page.getByText('The escalation policy was created.').waitFor();
    const row = page.getByRole('row').filter({ hasText: 'Night shift' });
    expect(await row.textContent()).to.include('after 5 min: webhook:');

    // Attached to a new policy through the policy form's picker.
    await nav('Policies');
    await page.getByRole('link', { name: 'New policy' }).click();
    await page.getByLabel('Title').fill('No orders');
    await page.getByLabel('Event').selectOption({ label: 'orders.placed (shop / orders.placed)' });
    await page.getByLabel('Period').selectOption('minute');
    await page.getByLabel('Aggregate').selectOption('count');
    await page.getByLabel('Condition').selectOption('lt');
    await page.getByLabel(/^Threshold/).fill('1');
    await page.getByLabel('Severity').selectOption('critical');
    await page.getByLabel('Escalation policy').selectOption({ label: 'Night shift' });
    await page.getByRole('button', { name: 'Create policy' }).click();
    await page.getByRole('row').filter({ hasText: 'No orders' }).waitFor();
    const [policy] = (await svc.request('GET', '/v1.0/policies', { token })).body;
    const [escalation] = (await svc.request('GET', '/v1.0/escalation-policies', { token })).body;
    expect(policy.escalation_policy_id).to.equal(escalation.escalation_policy_id);
    await nav('Escalation');
    await page.getByRole('row').filter({ hasText: 'Night shift' }).filter({ hasText: 'No orders' }).waitFor();

    // The alert: no orders in the last minute. Its webhook body carries the acknowledge link.
    const evaluated = await svc.request('POST', `/v1.0/policies/${policy.policy_id}/evaluate`, { token, body: {} });
    expect(evaluated.body.alert).to.include({ status: 'triggered' });
    const sent = await waitFor('alert.triggered at the webhook', async () => sink.requests.find((r) => r.json?.type === 'alert.triggered'));
    const ackUrl: string = sent.json.alert.ack_url;
    expect(ackUrl.startsWith(`${svc.url}/ack/${evaluated.body.alert.alert_id}?token=`)).to.equal(true);
    // Nobody acknowledged: the chain's two steps (step 1 in rounds 1 and 2) reach the webhook.
    const steps = await waitFor('two escalation steps at the webhook', async () => {
      const escalated = sink.requests.filter((r) => r.json?.type === 'alert.escalated');
      return escalated.length === 2 ? escalated : null;
    });
    expect(steps.map((r) => r.json.escalation)).to.deep.equal([
      { step: 1, of: 1, round: 1 },
      { step: 1, of: 1, round: 2 },
    ]);

    // A second tab, as a person opening the link from the message: the page, then the button.
    const linkPage = await browser.newPage();
    await linkPage.goto(ackUrl);
    await linkPage.getByRole('heading', { name: 'No orders' }).waitFor();
    expect((await svc.request('GET', `/v1.0/alerts/${evaluated.body.alert.alert_id}`, { token })).body.status).to.equal('triggered');
    await linkPage.getByRole('button', { name: 'Acknowledge' }).click();
    await linkPage.getByRole('status').filter({ hasText: 'Acknowledged at' }).waitFor();
    await linkPage.close();

    // The console shows it acknowledged, and from where.
    await nav('Alerts');
    const alertRow = page.getByRole('row').filter({ hasText: 'No orders' });
    await alertRow.filter({ hasText: 'acknowledged' }).waitFor();
    await alertRow.getByRole('link', { name: 'No orders' }).click();
    await page.getByText('(acknowledged from the notification link)').waitFor();
    // Its delivery history: the triggered notification and each escalation step, with its place in the chain.
    const history = page.locator('table.deliveries');
    for (const round of [1, 2]) {
      const step = history.getByRole('row').filter({ hasText: `escalation step 1 of 1, round ${round}` });
      await step.filter({ hasText: 'delivered' }).waitFor();
    }
    await history.getByRole('row').filter({ hasText: 'alert raised' }).waitFor();
  });
});
