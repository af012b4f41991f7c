// Message templates (docs/api.md, Message templates), through the API and real dispatch to
// local fakes: templates naming every variable, filled with hostile values (markup of every
// channel, emoji, a 10,000-character title), come out escaped for each channel and cut to its
// limit at a safe boundary; a webhook's body_template carries the values exactly as JSON; a
// test send renders the templates; a template that does not parse, names an unknown variable
// or (body_template) does not render a JSON object is refused with 400 naming the field, at
// create and at PUT, changing nothing.
import { expect } from 'chai';
import { variableNames } from '../../../src/channels/templateView.js';
import { newId } from '../../../src/ids.js';
import { expectWholeEmoji, FAMILY, type ServiceWithFakeChannels, startWithFakeChannels, subjectOf } from '../../helpers/channelMessages.js';
import type { FakeHttpServer, FakeSmtpServer, RecordedRequest } from '../../helpers/fakeProviders.js';
import { alertObject, raiseAlert, seedPolicy } from '../../helpers/outbox.js';
import type { TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

const WS = 'templates-ws';
const PIECE = `<b>&amp; "q" *bold* _it_ ~s~ \`code\` |x| <!here> \\ ${FAMILY} é `;
const TITLE = PIECE.repeat(Math.ceil(10_000 / PIECE.length)).slice(0, 10_000);

/** Every variable, one a line: `name=value`. */
const EVERY_VARIABLE = [...variableNames()].map((name) => `${name}={{${name}}}`).join('\n');

/** Without the template's own tags: no bare < or >, and & only in whole entities. */
function expectEscaped(text: string, ownTags: RegExp, entities: RegExp): void {
  const bare = text.replace(ownTags, '');
  expect(bare, 'no bare < or >').not.to.match(/[<>]/);
  expect(bare.replace(entities, ''), 'no partial entity').not.to.contain('&');
}

describe('message templates', function () {
  this.timeout(90_000);
  let fakes: ServiceWithFakeChannels;
  let svc: TestService;
  let provider: FakeHttpServer;
  let smtp: FakeSmtpServer;
  let token: string;

  before(async () => {
    fakes = await startWithFakeChannels({ ALLOW_PRIVATE_TARGETS: '1' });
    ({ svc, provider, smtp } = fakes);
    token = await svc.tokenFor(WS, 'owner@example.com');
  });
  after(() => fakes.close());

  const create = (body: object) => svc.request('POST', '/v1.0/destinations', { token, body });

  it('refuses an invalid template with 400 naming the field, at create and PUT, changing nothing', async () => {
    const slack = { channel: 'slack', url: `${provider.origin}/services/T1/B1/tok` };
    const webhook = { channel: 'webhook', url: `${provider.origin}/hook` };
    const cases: [object, string, RegExp][] = [
      [{ ...slack, title_template: '{{#alert}}unclosed' }, '/title_template', /not a valid Mustache template/],
      [{ ...slack, message_template: 'Value {{alert.valeu}}' }, '/message_template', /unknown variable "alert.valeu"/],
      [{ ...slack, message_template: '{{{alert.title}}}' }, '/message_template', /unescaped/],
      [{ ...slack, title_template: '{{> partial}}' }, '/title_template', /partial/],
      [{ ...slack, body_template: '{"a": 1}' }, '/body_template', /only for webhook/],
      [{ ...webhook, body_template: '{"title": {{alert.title}}}' }, '/body_template', /not valid JSON/],
      [{ ...webhook, body_template: '["{{alert.title}}"]' }, '/body_template', /JSON object/],
      [{ ...webhook, body_template: 'x'.repeat(4001) }, '/body_template', /4000/],
    ];
    for (const [body, path, message] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).to.equal(400);
      const detail = (res.body.error.details as { path: string; message: string }[]).find((d) => d.path === path);
      expect(detail, `${path} in ${res.text}`).to.not.equal(undefined);
      expect(detail!.message).to.match(message);
    }
    const listed = await svc.request('GET', '/v1.0/destinations', { token });
    expect(listed.body, 'nothing created').to.have.length(0);

    const made = await create({ ...webhook, title_template: '{{severity}}: {{alert.title}}' });
    expect(made.status, made.text).to.equal(201);
    expect(made.body).to.include({ title_template: '{{severity}}: {{alert.title}}', message_template: null, body_template: null, group_window_seconds: 0 });
    const id = made.body.destination_id;
    const put = await svc.request('PUT', `/v1.0/destinations/${id}`, { token, body: { body_template: '{"v": {{value}}, "t": {{alert.title}}}' } });
    expect(put.status).to.equal(400);
    expect(put.body.error.details[0].path).to.equal('/body_template');
    const read = await svc.request('GET', `/v1.0/destinations/${id}`, { token });
    expect(read.body).to.include({ title_template: '{{severity}}: {{alert.title}}', body_template: null });
    // A read-back PUT keeps them; an empty template is none.
    const back = await svc.request('PUT', `/v1.0/destinations/${id}`, { token, body: { ...read.body, title_template: '' } });
    expect(back.status, back.text).to.equal(200);
    expect(back.body.title_template).to.equal(null);
    await svc.request('PUT', `/v1.0/destinations/${id}`, { token, body: { enabled: false } });
  });

  it('renders every variable with hostile values, escaped for each channel and cut to its limit', async () => {
    const title = '{{severity}} {{alert.title}}';
    const destinations = [
      { channel: 'slack', url: `${provider.origin}/services/T1/B1/slackToken`, title_template: title, message_template: EVERY_VARIABLE },
      { channel: 'discord', url: `${provider.origin}/api/webhooks/9/discordToken`, title_template: title, message_template: EVERY_VARIABLE },
      {
        channel: 'telegram',
        credentials: { bot_token: '555:botToken', chat_id: 1 },
        title_template: title,
        message_template: `<i>{{alert.title}}</i>\n<a href="{{console_url}}">open</a>\n${EVERY_VARIABLE}`,
      },
      { channel: 'email', url: 'ops@example.com', title_template: `Alert: ${title}`, message_template: `<p>{{alert.title}}</p>\n${EVERY_VARIABLE}` },
      {
        channel: 'webhook',
        url: `${provider.origin}/body`,
        body_template:
          '{"text": "{{alert.title}}", "agent": "{{event.agent}}", "value": {{value}}, "resolved_at": "{{alert.resolved_at}}", "peak": {{alert.peak_value}}, "local": "{{triggered_at_local}}"}',
      },
    ];
    for (const body of destinations) {
      const res = await create(body);
      expect(res.status, res.text).to.equal(201);
    }
    const policy = await seedPolicy(svc.stores.postgres, WS, TITLE);
    const { alertId } = await raiseAlert(svc.stores.postgres, WS, policy);
    await svc.stores.postgres.query(
      `INSERT INTO alert_notifications (notification_id, workspace_id, alert_id, policy_id, type, alert) VALUES ($1, $2, $3, $4, 'alert.triggered', $5)`,
      [newId(), WS, alertId, policy.policyId, { ...alertObject(alertId, policy, 'triggered', TITLE), agent: `agent <x> & ${FAMILY}` }],
    );
    // The hostile alert's messages (raiseAlert's own notification is of an alert titled High latency).
    const hostile = (text: string) => text.includes('bold') && !text.includes('High latency');
    const long = (r: RecordedRequest) => hostile(r.body);
    const find = (path: string) => provider.requests.filter(long).find((r) => r.path.includes(path));
    const [slack, discord, telegram, hook] = await waitFor('the four HTTP messages', async () => {
      const found = [find('/services/'), find('/webhooks/'), find('/sendMessage'), find('/body')];
      return found.every(Boolean) ? (found as RecordedRequest[]) : null;
    });
    const mail = await waitFor('the email', async () => smtp.messages.find((m) => hostile(m.text)) ?? null);

    // Slack: the headline from title_template in bold, cut first; values' markup escaped; 3,000 at most.
    const section: string = slack!.json.blocks[0].text.text;
    expect(section.length).to.be.at.most(3000);
    expect(section).to.match(/^\*critical &lt;b&gt;&amp;amp; "q" \*bold\*/);
    expect(section.split('\n')[0]).to.match(/…\*$/);
    expect(section).to.contain('\nalert.alert_id=');
    expectEscaped(section, /(?!)/g, /&(?:amp|lt|gt);/g);
    expectWholeEmoji(section);

    // Discord: markdown characters of values escaped, 2,000 at most.
    const content: string = discord!.json.content;
    expect(content.length).to.be.at.most(2000);
    const headline = content.split('\n')[0]!;
    expect(headline)
      .to.match(/^\*\*critical <b>&amp; "q" \\\*bold\\\* \\_it\\_/)
      .and.match(/…\*\*$/);
    expect(headline.slice(2, -2).replace(/\\[\\*_~`|]/g, ''), 'markdown escaped whole').not.to.match(/[\\*_~`|]/);
    expectWholeEmoji(content);

    // Telegram: HTML, quotes escaped too, the template's own tags kept and closed after the cut, 4,096 at most.
    const html: string = telegram!.json.text;
    expect(html.length).to.be.at.most(4096);
    expect(html).to.match(/^<b>critical &lt;b&gt;&amp;amp; &quot;q&quot; \*bold\*/);
    expect(html).to.contain('\n<i>&lt;b&gt;');
    expect(html).to.match(/…<\/i>$/);
    expectEscaped(html, /<\/?[bi]>/g, /&(?:amp|lt|gt|quot);/g);
    for (const tag of ['b', 'i']) expect(html.split(`<${tag}>`).length, `<${tag}> closed`).to.equal(html.split(`</${tag}>`).length);
    expectWholeEmoji(html);

    // Email: the subject from title_template, cut to 200; the HTML part with values escaped, the text part as they are.
    expect(mail.raw).to.match(/Content-Type: text\/html/i);
    expect(mail.text).to.contain('<p>&lt;b&gt;&amp;amp; &quot;q&quot;');
    expect(mail.text).to.contain('alert.agent=agent <x> & ');
    const subject = subjectOf(mail.raw);
    expect(subject.length).to.be.at.most(200);
    expect(subject)
      .to.match(/^Alert: critical <b>&amp; "q"/)
      .and.match(/…$/);

    // Webhook: the body template's JSON carries every value exactly.
    expect(hook!.json).to.deep.equal({
      text: TITLE,
      agent: 'web-1',
      value: 812.5,
      resolved_at: 'null',
      peak: null,
      local: hook!.json.local,
    });
    expect(hook!.json.local).to.match(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+00:00 \(UTC\)$/);
  });

  it('renders the templates in a test send', async () => {
    const made = await create({
      channel: 'webhook',
      url: `${provider.origin}/test-render`,
      title_template: '{{status}} · {{event.event}}',
      message_template: 'Value {{value}} against {{threshold}}',
    });
    const sent = await svc.request('POST', `/v1.0/destinations/${made.body.destination_id}/test`, { token });
    expect(sent.status, sent.text).to.equal(200);
    const request = await waitFor('the test request', async () => provider.requests.find((r) => r.path === '/test-render') ?? null);
    expect(request.json).to.include({ type: 'test', title: 'triggered · destination.test', message: 'Value 1 against 0' });
  });
});
