// A 10,000-character title full of emoji and markup characters, sent to every chat channel
// and email: each message stays within its provider's limit, is cut with "…" at a safe
// boundary (no split emoji, escape or entity) and is still valid markup.
import { expect } from 'chai';
import { newId } from '../../../src/ids.js';
import { expectWholeEmoji, FAMILY, FLAG, type ServiceWithFakeChannels, startWithFakeChannels, subjectOf } from '../../helpers/channelMessages.js';
import type { FakeHttpServer, FakeSmtpServer, RecordedRequest } from '../../helpers/fakeProviders.js';
import { alertObject, raiseAlert, seedPolicy } from '../../helpers/outbox.js';
import type { TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

const WS = 'message-limits-ws';
const PIECE = `<b>&amp; *bold* _it_ ~s~ \`code\` |x| \\ ${FAMILY}${FLAG} é `;
const TITLE = PIECE.repeat(Math.ceil(10_000 / PIECE.length)).slice(0, 10_000);

/** &, < and > only as whole entities or (Telegram) the <b> tags, tags balanced. */
function expectValidEntities(text: string, tags: boolean): void {
  const withoutTags = tags ? text.replace(/<\/?b>/g, '') : text;
  expect(withoutTags, 'no bare < or >').not.to.match(/[<>]/);
  expect(withoutTags.replace(/&(?:amp|lt|gt);/g, ''), 'no partial entity').not.to.contain('&');
  if (tags) {
    expect(text.match(/<b>/g)?.length).to.equal(1);
    expect(text.match(/<\/b>/g)?.length).to.equal(1);
    expect(text.indexOf('<b>')).to.be.below(text.indexOf('</b>'));
  }
}

describe('message limits', function () {
  this.timeout(60_000);
  let fakes: ServiceWithFakeChannels;
  let svc: TestService;
  let provider: FakeHttpServer;
  let smtp: FakeSmtpServer;
  let token: string;

  before(async () => {
    fakes = await startWithFakeChannels();
    ({ svc, provider, smtp } = fakes);
    token = await svc.tokenFor(WS, 'owner@example.com');
  });
  after(() => fakes.close());

  it('cuts each channel’s message to its limit at a safe boundary, as valid markup', async () => {
    for (const body of [
      { channel: 'slack', url: `${provider.origin}/services/T1/B1/slackToken` },
      { channel: 'discord', url: `${provider.origin}/api/webhooks/9/discordToken` },
      { channel: 'telegram', credentials: { bot_token: '555:botToken', chat_id: 1 } },
      { channel: 'email', url: 'ops@example.com' },
    ]) {
      expect((await svc.request('POST', '/v1.0/destinations', { token, body })).status).to.equal(201);
    }
    const policy = await seedPolicy(svc.stores.postgres, WS);
    // The outbox row of an alert whose title is the long one, as an alert transition writes it.
    const { alertId } = await raiseAlert(svc.stores.postgres, WS, policy);
    await svc.stores.postgres.query(
      `INSERT INTO alert_notifications (notification_id, workspace_id, alert_id, policy_id, type, alert) VALUES ($1, $2, $3, $4, 'alert.resolved', $5)`,
      [newId(), WS, alertId, policy.policyId, alertObject(alertId, policy, 'resolved', TITLE)],
    );
    const isLong = (r: RecordedRequest) => JSON.stringify(r.json).includes('RESOLVED');
    const [slack, discord, telegram] = await waitFor('the three chat messages', async () => {
      const long = provider.requests.filter(isLong);
      const find = (path: string) => long.find((r) => r.path.includes(path));
      const found = [find('/services/'), find('/webhooks/'), find('/sendMessage')];
      return found.every(Boolean) ? (found as RecordedRequest[]) : null;
    });
    const mail = await waitFor('the email', async () => smtp.messages.find((m) => m.text.includes('Resolved:')) ?? null);

    // Slack: one section block of at most 3,000 characters, mrkdwn entities whole, the bold headline closed.
    const section: string = slack!.json.blocks[0].text.text;
    expect(slack!.json.blocks[0]).to.deep.include({ type: 'section' });
    expect(section.length).to.be.at.most(3000);
    expect(slack!.json.text).to.equal(section);
    expect(section).to.match(/^\*\[RESOLVED\] <b>|^\*\[RESOLVED\] &lt;b&gt;/);
    expect(section.split('\n')[0]).to.match(/…\*$/);
    expect(section).to.contain('is back to 120');
    expectValidEntities(section, false);
    expectWholeEmoji(section);

    // Discord: content of at most 2,000 characters, every markdown character escaped, the bold headline closed.
    const content: string = discord!.json.content;
    expect(content.length).to.be.at.most(2000);
    const headline = content.split('\n')[0]!;
    expect(headline)
      .to.match(/^\*\*\[RESOLVED\] /)
      .and.match(/…\*\*$/);
    const inner = headline.slice(2, -2);
    expect(inner.replace(/\\[\\*_~`|]/g, ''), 'markdown characters escaped whole').not.to.match(/[\\*_~`|]/);
    expect(content).to.contain('is back to 120');
    expectWholeEmoji(content);

    // Telegram: HTML parse mode, at most 4,096 characters, entities whole, one <b> closed.
    expect(telegram!.json.parse_mode).to.equal('HTML');
    const html: string = telegram!.json.text;
    expect(html.length).to.be.at.most(4096);
    expect(html).to.match(/^<b>\[RESOLVED\] &lt;b&gt;&amp;amp; /);
    expect(html.split('\n')[0]).to.match(/…<\/b>$/);
    expect(html).to.contain('is back to 120');
    expectValidEntities(html, true);
    expectWholeEmoji(html);

    // Email: a subject of at most 200 characters, the body with the whole title.
    const shownSubject = subjectOf(mail.raw);
    expect(shownSubject.length).to.be.at.most(200);
    expect(shownSubject)
      .to.match(/^\[alertmon\] Resolved: <b>&amp;/)
      .and.match(/…$/);
    expectWholeEmoji(shownSubject);
  });
});
