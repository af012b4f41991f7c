import { expect } from 'chai';
import { seedPolicy } from '../../helpers/outbox.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const SLACK_ORIGIN = 'https://hooks.slack.test';
const SLACK_URL = `${SLACK_ORIGIN}/services/T0000/B0000/slackSecretToken123`;
const DISCORD_URL = 'https://discord.com/api/webhooks/123456/discordSecretToken456';
const BOT_TOKEN = '123456:telegramSecretToken789';
const AUTHORIZATION = 'Bearer webhookSecretValue000';

describe('destinations API', function () {
  this.timeout(60_000);
  let svc: TestService;
  let token: string;
  let otherToken: string;
  before(async () => {
    svc = await startTestService({ env: { SLACK_WEBHOOK_ORIGIN: SLACK_ORIGIN } });
    token = await svc.tokenFor('dest-ws', 'owner@example.com');
    otherToken = await svc.tokenFor('dest-other-ws');
  });
  after(() => svc.close());

  const create = (body: unknown, as = token) => svc.request('POST', '/v1.0/destinations', { token: as, body });
  const put = (id: string, body: unknown) => svc.request('PUT', `/v1.0/destinations/${id}`, { token, body });
  const read = (id: string) => svc.request('GET', `/v1.0/destinations/${id}`, { token });

  it('creates a destination of every channel, with the documented defaults and secrets abbreviated', async () => {
    const cases = [
      [
        { channel: 'slack', url: SLACK_URL },
        { url: `${SLACK_ORIGIN}/services/T0000/B0000/slac…`, credentials: null },
      ],
      [
        { channel: 'discord', url: DISCORD_URL },
        { url: 'https://discord.com/api/webhooks/123456/disc…', credentials: null },
      ],
      [
        { channel: 'telegram', credentials: { bot_token: BOT_TOKEN, chat_id: -100123 } },
        { url: null, credentials: { bot_token: '1234…', chat_id: -100123 } },
      ],
      [
        { channel: 'webhook', url: 'https://example.com/hook', credentials: { authorization: AUTHORIZATION } },
        { url: 'https://example.com/hook', credentials: { authorization: 'Bear…' } },
      ],
      [
        { channel: 'webhook', url: 'http://example.com/plain' },
        { url: 'http://example.com/plain', credentials: null },
      ],
      [
        { channel: 'email', url: 'ops@example.com' },
        { url: 'ops@example.com', credentials: null },
      ],
      [
        { channel: 'email', url: 'mailto:ops@example.com' },
        { url: 'mailto:ops@example.com', credentials: null },
      ],
      [{ channel: 'email' }, { url: null, credentials: null }],
    ] as const;
    for (const [body, shown] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).to.equal(201);
      expect(res.body).to.deep.include({
        channel: body.channel,
        scope: 'all',
        policy_ids: [],
        enabled: true,
        last_delivered_at: null,
        last_error: null,
        ...shown,
      });
      expect(res.body.destination_id).to.match(/^[0-9a-f-]{36}$/);
      expect(res.body.created_at).to.match(/\.\d{3}Z$/);
      // The webhook signing secret is shown in full in the create answer only.
      const signingSecret = body.channel === 'webhook' ? 'whse…' : null;
      expect(res.body.signing_secret === null ? null : 'whse…').to.equal(signingSecret);
      expect((await read(res.body.destination_id)).body).to.deep.equal({ ...res.body, signing_secret: signingSecret });
    }
  });

  it('abbreviates a token with a malformed %-escape without failing', async () => {
    const res = await create({ channel: 'slack', url: `${SLACK_ORIGIN}/services/T0000/B0000/%E0xyzSecret` });
    expect(res.status).to.equal(201);
    expect(res.body.url).to.equal(`${SLACK_ORIGIN}/services/T0000/B0000/%E0x…`);
    expect((await read(res.body.destination_id)).status).to.equal(200);
  });

  it('lists the workspace destinations newest first, with limit and offset', async () => {
    const first = await create({ channel: 'email', url: 'a@example.com' });
    const second = await create({ channel: 'email', url: 'b@example.com' });
    const list = await svc.request('GET', '/v1.0/destinations?limit=2', { token });
    expect(list.status).to.equal(200);
    expect(list.body.map((d: { destination_id: string }) => d.destination_id)).to.deep.equal([second.body.destination_id, first.body.destination_id]);
    const next = await svc.request('GET', '/v1.0/destinations?limit=1&offset=1', { token });
    expect(next.body[0].destination_id).to.equal(first.body.destination_id);
    expect((await svc.request('GET', '/v1.0/destinations?limit=1001', { token })).status).to.equal(400);
    expect((await svc.request('GET', '/v1.0/destinations', { token: otherToken })).body).to.deep.equal([]);
  });

  it('refuses an invalid configuration with 400 naming each problem, per channel', async () => {
    const cases: [unknown, string][] = [
      [{ channel: 'sms', url: '+15550100' }, '/channel'],
      [{ channel: 'pager' }, '/channel'],
      [{ url: SLACK_URL }, '/channel'],
      [{ channel: 'slack' }, '/url'],
      [{ channel: 'slack', url: 'https://hooks.slack.com.evil.test/services/T/B/x' }, '/url'],
      [{ channel: 'slack', url: `${SLACK_ORIGIN}/hooks/T/B/x` }, '/url'],
      [{ channel: 'slack', url: `${SLACK_ORIGIN}/services/` }, '/url'],
      [{ channel: 'slack', url: SLACK_URL, credentials: { authorization: 'x' } }, '/credentials'],
      [{ channel: 'discord', url: 'https://example.com/api/webhooks/1/x' }, '/url'],
      [{ channel: 'discord', url: 'https://discord.com/api/hooks/1/x' }, '/url'],
      [{ channel: 'discord' }, '/url'],
      [{ channel: 'telegram' }, '/credentials'],
      [{ channel: 'telegram', credentials: { chat_id: 1 } }, '/credentials/bot_token'],
      [{ channel: 'telegram', credentials: { bot_token: BOT_TOKEN } }, '/credentials/chat_id'],
      [{ channel: 'telegram', credentials: { bot_token: BOT_TOKEN, chat_id: ' ' } }, '/credentials/chat_id'],
      [{ channel: 'telegram', credentials: { bot_token: '1234…', chat_id: 1 } }, '/credentials/bot_token'],
      [{ channel: 'webhook' }, '/url'],
      [{ channel: 'webhook', url: '/relative/path' }, '/url'],
      [{ channel: 'webhook', url: 'ftp://example.com/x' }, '/url'],
      [{ channel: 'webhook', url: 'https://example.com', credentials: { token: 'x' } }, '/credentials/token'],
      [{ channel: 'webhook', url: 'https://example.com', credentials: { authorization: 'Bear…' } }, '/credentials/authorization'],
      [{ channel: 'email', url: 'not an address' }, '/url'],
      [{ channel: 'email', url: 'https://example.com' }, '/url'],
      [{ channel: 'email', url: 'ops@example.com', enabled: 'yes' }, '/enabled'],
      [{ channel: 'email', url: 'ops@example.com', nmae: 'typo' }, '/nmae'],
      [{ channel: 'email', url: 'ops@example.com', scope: 'some' }, '/scope'],
      [{ channel: 'email', url: 'ops@example.com', scope: 'policies' }, '/policy_ids'],
      [{ channel: 'email', url: 'ops@example.com', scope: 'policies', policy_ids: [] }, '/policy_ids'],
      [{ channel: 'email', url: 'ops@example.com', scope: 'policies', policy_ids: ['0196f7a0-3c1e-7000-8000-000000000001'] }, '/policy_ids/0'],
      [{ channel: 'email', url: 'ops@example.com', scope: 'policies', policy_ids: ['not-a-uuid'] }, '/policy_ids/0'],
    ];
    for (const [body, path] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error.code).to.equal('validation_failed');
      expect(
        res.body.error.details.map((d: { path: string }) => d.path),
        JSON.stringify(body),
      ).to.include(path);
    }
    // Without an owner email, an email destination needs an address.
    const res = await create({ channel: 'email' }, otherToken);
    expect(res.status).to.equal(400);
    expect(res.body.error.details[0].path).to.equal('/url');
  });

  it('routes by policy only to policies of the workspace', async () => {
    const ws = await svc.stores.postgres.query<{ user_id: string }>('SELECT user_id FROM workspaces WHERE user_id = $1', ['dest-ws']);
    expect(ws).to.have.length(1);
    const own = await seedPolicy(svc.stores.postgres, 'dest-ws');
    const foreign = await seedPolicy(svc.stores.postgres, 'dest-other-ws');
    const ok = await create({ channel: 'email', url: 'ops@example.com', scope: 'policies', policy_ids: [own.policyId.toUpperCase(), own.policyId] });
    expect(ok.status).to.equal(201);
    expect(ok.body).to.deep.include({ scope: 'policies', policy_ids: [own.policyId] });
    const refused = await create({ channel: 'email', url: 'ops@example.com', scope: 'policies', policy_ids: [own.policyId, foreign.policyId] });
    expect(refused.status).to.equal(400);
    expect(refused.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['/policy_ids/1']);
    // scope all takes no list; switching back to all drops it.
    expect((await create({ channel: 'email', url: 'ops@example.com', scope: 'all', policy_ids: [own.policyId] })).status).to.equal(400);
    const widened = await put(ok.body.destination_id, { scope: 'all' });
    expect(widened.status).to.equal(200);
    expect(widened.body).to.deep.include({ scope: 'all', policy_ids: [] });
  });

  it('PUT changes the given fields, ignores read-only ones and keeps secrets sent back abbreviated or omitted', async () => {
    const created = await create({ channel: 'telegram', credentials: { bot_token: BOT_TOKEN, chat_id: '42' } });
    const id = created.body.destination_id;
    // The whole read-back object, with a change: the abbreviated token must not replace the stored one.
    const readBack = (await read(id)).body;
    const res = await put(id, { ...readBack, enabled: false });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.include({
      enabled: false,
      destination_id: id,
      created_at: readBack.created_at,
      credentials: { bot_token: '1234…', chat_id: '42' },
    });
    const stored = await svc.stores.postgres.query<{ credentials: { bot_token: string } }>('SELECT credentials FROM destinations WHERE destination_id = $1', [
      id,
    ]);
    expect(stored[0]!.credentials.bot_token).to.equal(BOT_TOKEN);
    // Omitted credentials are kept too; a new chat id with the token as read keeps the token.
    expect((await put(id, { enabled: true })).status).to.equal(200);
    expect((await put(id, { credentials: { bot_token: '1234…', chat_id: '43' } })).body.credentials).to.deep.equal({ bot_token: '1234…', chat_id: '43' });
    const after = await svc.stores.postgres.query<{ credentials: { bot_token: string; chat_id: string } }>(
      'SELECT credentials FROM destinations WHERE destination_id = $1',
      [id],
    );
    expect(after[0]!.credentials).to.deep.equal({ bot_token: BOT_TOKEN, chat_id: '43' });
    // An abbreviation that is not the stored secret's is refused, and nothing changes.
    const wrong = await put(id, { credentials: { bot_token: '9999…', chat_id: '43' }, enabled: false });
    expect(wrong.status).to.equal(400);
    expect((await read(id)).body.enabled).to.equal(true);
    // A new secret replaces the old one.
    expect((await put(id, { credentials: { bot_token: '777:newToken', chat_id: '43' } })).body.credentials.bot_token).to.equal('777:…');

    const slack = await create({ channel: 'slack', url: SLACK_URL });
    const slackBack = (await read(slack.body.destination_id)).body;
    expect((await put(slack.body.destination_id, slackBack)).status).to.equal(200);
    const slackRow = await svc.stores.postgres.query<{ url: string }>('SELECT url FROM destinations WHERE destination_id = $1', [slack.body.destination_id]);
    expect(slackRow[0]!.url).to.equal(SLACK_URL);
  });

  it('PUT validates the merged destination and answers 404 for another workspace', async () => {
    const created = await create({ channel: 'webhook', url: 'https://example.com/hook' });
    const id = created.body.destination_id;
    expect((await put(id, { url: 'not a url' })).status).to.equal(400);
    expect((await put(id, { channel: 'telegram' })).status).to.equal(400);
    expect((await put(id, { destination_id: '0196f7a0-3c1e-7000-8000-000000000001', last_error: 'x', updated_at: 'y' })).status).to.equal(200);
    expect((await read(id)).body.destination_id).to.equal(id);
    expect((await svc.request('GET', `/v1.0/destinations/${id}`, { token: otherToken })).status).to.equal(404);
    expect((await svc.request('PUT', `/v1.0/destinations/${id}`, { token: otherToken, body: { enabled: false } })).status).to.equal(404);
    expect((await svc.request('GET', '/v1.0/destinations/not-a-uuid', { token })).body.error.code).to.equal('invalid_id');
  });
});
