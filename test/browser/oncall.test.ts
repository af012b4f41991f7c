// On-call schedules in a real browser, at a phone's 390×844 and a desktop's 1440×900: add a
// person, see who is on call now, the two-week timeline in the schedule's timezone, add an
// override through the form and see it win, and copy the calendar link.
import { expect } from 'chai';
import { browserSuiteHooks, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { lookAt, signIn } from '../helpers/consolePage.js';
import { startTestService, type TestService } from '../helpers/service.js';

const DAY = 86_400_000;

describe('on-call schedules in the console (Chromium)', function () {
  this.timeout(300_000);
  let svc: TestService;
  let browser: TestBrowser;
  let token: string;
  let scheduleId: string;

  before(async function () {
    this.timeout(600_000);
    [svc, browser] = await Promise.all([startTestService(), launchBrowser()]);
    token = await svc.tokenFor('oncall-browser-ws');
    const dest = (await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: 'https://example.com/pager' } })).body
      .destination_id;
    const person = async (name: string) => (await svc.request('POST', '/v1.0/people', { token, body: { name, destination_ids: [dest] } })).body.person_id;
    const [ada, bo] = [await person('Ada'), await person('Bo')];
    const start = new Date(Math.floor(Date.now() / DAY) * DAY - 3 * DAY + 8 * 3_600_000).toISOString();
    const created = await svc.request('POST', '/v1.0/schedules', {
      token,
      body: {
        name: 'Payments',
        timezone: 'Europe/Berlin',
        layers: [{ name: 'primary', start, rotation: { type: 'daily', handoff: '09:00' }, members: [ada, bo] }],
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
    it(`adds a person, shows who is on call and the timeline, and adds an override at ${width}×${height}`, async () => {
      const page = await browser.newPage();
      await page.setViewportSize({ width, height });
      await signIn(page, svc.url, token);
      const nav = (name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name }).click();

      await nav('People');
      await page.getByRole('heading', { name: 'People', level: 1 }).waitFor();
      const name = `Cy ${width}`;
      await page.getByLabel('Name').fill(name);
      await page.getByLabel(/^webhook/).check();
      await page.getByRole('button', { name: 'Add person' }).click();
      await page.getByText(`${name} was added.`).waitFor();
      expect(await page.getByRole('row').filter({ hasText: name }).textContent()).to.include('webhook');
      // Edited: where they live; an unknown zone is refused beside its field first.
      await page.getByRole('button', { name: `Edit ${name}` }).click();
      await page.getByLabel('Where they live (timezone)').fill('Mars/Olympus');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('must be an IANA timezone name').waitFor();
      await page.getByLabel('Where they live (timezone)').fill('Asia/Kolkata');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText(`${name} was saved.`).waitFor();
      expect(await page.getByRole('row').filter({ hasText: name }).textContent()).to.include('Asia/Kolkata');
      await lookAt(page, `oncall-people-${width}`);

      await nav('On call');
      await page.getByRole('heading', { name: 'On-call schedules', level: 1 }).waitFor();
      const row = page.getByRole('row').filter({ hasText: 'Payments' });
      await row.filter({ hasText: /Ada|Bo/ }).waitFor();
      expect(await row.textContent()).to.match(/(Ada|Bo) \(layer primary\)/);
      await page.getByText('Times in Europe/Berlin (the schedule’s timezone)').waitFor();
      await page.locator('.timeline-row.final .timeline-bar').first().waitFor();

      // An override tomorrow 12:00–15:00 Berlin time, for the person just added.
      const tomorrow = new Date(Date.now() + DAY + (width === 390 ? 0 : 2 * DAY)).toISOString().slice(0, 10);
      await page.getByLabel('Who', { exact: true }).selectOption({ label: name });
      await page.getByLabel('From (Europe/Berlin)').fill(`${tomorrow}T12:00`);
      await page.getByLabel('To (Europe/Berlin)').fill(`${tomorrow}T15:00`);
      await page.getByRole('button', { name: 'Add override' }).click();
      await page.getByText(new RegExp(`${name} is on call from .*12:00 \\(Europe/Berlin\\) to .*15:00 \\(Europe/Berlin\\)`)).waitFor();
      const shifts = await svc.request('GET', `/v1.0/schedules/${scheduleId}/shifts?from=${tomorrow}T00:00:00Z&to=${tomorrow}T23:00:00Z`, { token });
      const override = shifts.body.find((s: { layer: string }) => s.layer === 'override');
      // 12:00 in Berlin is 11:00 or 10:00 UTC (winter or summer).
      expect(override.starts_at).to.match(new RegExp(`^${tomorrow}T1[01]:00:00.000Z$`));
      await page.locator('.timeline-bar.override', { hasText: name }).first().waitFor();
      await page.getByText(/The two weeks’ shifts as a list/).click();
      await page.getByRole('row').filter({ hasText: name }).filter({ hasText: 'an override' }).waitFor();

      // A bad override is refused with the API's words beside the field.
      await page.getByLabel('Who', { exact: true }).selectOption({ label: name });
      await page.getByLabel('From (Europe/Berlin)').fill(`${tomorrow}T16:00`);
      await page.getByLabel('To (Europe/Berlin)').fill(`${tomorrow}T14:00`);
      await page.getByRole('button', { name: 'Add override' }).click();
      await page.getByText('must be after the start').waitFor();

      const link = await page.getByLabel('Calendar link').inputValue();
      expect(link).to.match(new RegExp(`/ical/schedules/${scheduleId}\\.ics\\?token=`));
      expect((await fetch(link)).status).to.equal(200);
      // Nothing wider than the screen (the timeline scrolls inside its own box): checked with the screenshot.
      await lookAt(page, `oncall-schedules-${width}`);
      await page.close();
    });
  }
});
