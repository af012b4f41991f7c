// Each channel's request and message, sent by the delivery worker for real outbox rows.
import { expect } from 'chai';
import { FakeHttpServer, FakeSmtpServer } from '../../helpers/fakeProviders.js';
import { raiseAlert, resolveAlert, seedPolicy, type SeededPolicy } from '../../helpers/outbox.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

const WS = 'channels-ws';

describe('delivery channels', function () {
  this.timeout(60_000);
  let svc: TestService;
  let provider: FakeHttpServer;
  let smtp: FakeSmtpServer;
  let token: string;
  let policy: SeededPolicy;

  before(async () => {
    provider = await FakeHttpServer.start();
    smtp = await FakeSmtpServer.start();
    svc = await startTestService({
      env: {
        ALLOW_PRIVATE_TARGETS: '1',
        SLACK_WEBHOOK_ORIGIN: provider.origin,
        DISCORD_WEBHOOK_ORIGINS: provider.origin,
        TELEGRAM_API_ORIGIN: provider.origin,
        SMTP_URL: smtp.url,
        EMAIL_FROM: 'alerts@alertmon.test',
        DELIVERY_POLL_INTERVAL_MS: '50',
        DELIVERY_RETRY_SCHEDULE_MS: '100,100,100,100,100',
      },
    });
    token = await svc.tokenFor(WS, 'owner@example.com');
    policy = await seedPolicy(svc.stores.postgres, WS);
  });
  after(async () => {
    await svc.close();
    await provider.close();
    await smtp.close();
  });

  /** Makes `body` the only enabled destination of the workspace. */
  async function onlyDestination(body: object): Promise<string> {
    await svc.stores.postgres.query('UPDATE destinations SET enabled = false WHERE workspace_id = $1', [WS]);
    const res = await svc.request('POST', '/v1.0/destinations', { token, body });
    expect(res.status).to.equal(201);
    return res.body.destination_id;
  }

  async function deliveredAttempts(alertId: string, count: number) {
    return waitFor(`${count} delivered attempts`, async () => {
      const res = await svc.request('GET', `/v1.0/alerts/${alertId}/deliveries`, { token });
      const done = res.body.filter((a: { status: string }) => a.status === 'delivered');
      return done.length >= count ? res.body : null;
    });
  }

  it('webhook: POSTs {type, alert} with Authorization and the notification id as Idempotency-Key', async () => {
    await onlyDestination({ channel: 'webhook', url: `${provider.origin}/sink`, credentials: { authorization: 'Token abc123' } });
    const before = provider.requests.length;
    const { alertId, notificationId } = await raiseAlert(svc.stores.postgres, WS, policy);
    const [attempt] = await deliveredAttempts(alertId, 1);
    const request = provider.requests[before]!;
    expect(request.path).to.equal('/sink');
    expect(request.headers['content-type']).to.contain('application/json');
    expect(request.headers.authorization).to.equal('Token abc123');
    expect(request.headers['idempotency-key']).to.equal(notificationId);
    expect(request.json.type).to.equal('alert.triggered');
    const stored = await svc.stores.postgres.query<{ alert: object }>('SELECT alert FROM alert_notifications WHERE notification_id = $1', [notificationId]);
    // The alert as stored, with its acknowledge link (none: this outbox row was written without a link token).
    expect(request.json.alert).to.deep.equal({ ...stored[0]!.alert, ack_url: null });
    expect(attempt).to.include({ kind: 'alert', type: 'alert.triggered', status: 'delivered', response_status: 200, notification_id: notificationId });
    const alert = await svc.stores.postgres.query<{ alerted_at: Date | null }>('SELECT alerted_at FROM alerts WHERE alert_id = $1', [alertId]);
    expect(alert[0]!.alerted_at).to.be.instanceOf(Date);
  });

  it('slack: a readable message in text, triggered then resolved', async () => {
    await onlyDestination({ channel: 'slack', url: `${provider.origin}/services/T1/B1/slackToken` });
    const before = provider.requests.length;
    const { alertId } = await raiseAlert(svc.stores.postgres, WS, policy);
    await deliveredAttempts(alertId, 1);
    await resolveAlert(svc.stores.postgres, WS, alertId, policy);
    const attempts = await deliveredAttempts(alertId, 2);
    expect(attempts.map((a: { type: string }) => a.type)).to.deep.equal(['alert.resolved', 'alert.triggered']);
    const [triggered, resolved] = provider.requests.slice(before);
    expect(triggered!.path).to.equal('/services/T1/B1/slackToken');
    const text: string = triggered!.json.text;
    expect(text).to.contain('*[CRITICAL] High latency*');
    expect(text).to.contain('web-1 / http.latency_ms');
    expect(text).to.contain('p95 (estimated) per minute was 812.5, above the threshold 500');
    expect(text).to.contain('Severity: critical');
    expect(text).to.match(/Triggered at \d{4}-\d{2}-\d{2}T/);
    expect(resolved!.json.text).to.contain('[RESOLVED] High latency');
    expect(resolved!.json.text).to.contain('is back to 120');
    expect(resolved!.json.text).to.match(/Resolved at \d{4}-/);
  });

  it('discord: the message in content, mentions disabled', async () => {
    await onlyDestination({ channel: 'discord', url: `${provider.origin}/api/webhooks/99/discordToken` });
    const before = provider.requests.length;
    const { alertId } = await raiseAlert(svc.stores.postgres, WS, policy);
    await deliveredAttempts(alertId, 1);
    const request = provider.requests[before]!;
    expect(request.path).to.equal('/api/webhooks/99/discordToken');
    expect(request.json.content).to.contain('**[CRITICAL] High latency**');
    expect(request.json.content).to.contain('above the threshold 500');
    expect(request.json.allowed_mentions).to.deep.equal({ parse: [] });
  });

  it('telegram: sendMessage to the chat with the bot token in the path', async () => {
    await onlyDestination({ channel: 'telegram', credentials: { bot_token: '555:botToken', chat_id: '@ops' } });
    const before = provider.requests.length;
    const { alertId } = await raiseAlert(svc.stores.postgres, WS, policy);
    const [attempt] = await deliveredAttempts(alertId, 1);
    const request = provider.requests[before]!;
    expect(request.path).to.equal('/bot555:botToken/sendMessage');
    expect(request.json).to.include({ chat_id: '@ops' });
    expect(request.json.text).to.contain('[CRITICAL] High latency');
    expect(attempt.target).to.equal(`${provider.origin}/bot555:…/sendMessage?chat_id=@ops`);
  });

  it('telegram and discord: the wait a 429 asks for in its JSON answer is honoured', async () => {
    const cases = [
      [
        { channel: 'telegram', credentials: { bot_token: '555:botToken', chat_id: 1 } },
        { ok: false, error_code: 429, description: 'Too Many Requests: retry after 2', parameters: { retry_after: 2 } },
      ],
      [
        { channel: 'discord', url: `${provider.origin}/api/webhooks/99/discordToken` },
        { message: 'You are being rate limited.', retry_after: 1.5, global: false },
      ],
    ] as const;
    for (const [destination, answer] of cases) {
      await onlyDestination(destination);
      provider.answerNext({ status: 429, body: answer });
      const { alertId } = await raiseAlert(svc.stores.postgres, WS, policy);
      const attempts = await deliveredAttempts(alertId, 1);
      const failed = attempts.find((a: { attempt: number }) => a.attempt === 1);
      expect(failed, destination.channel).to.include({ status: 'failed', response_status: 429 });
      const waitedMs = Date.parse(failed.next_attempt_at) - Date.parse(failed.updated_at);
      expect(waitedMs, destination.channel).to.be.at.least(destination.channel === 'telegram' ? 1_990 : 1_490);
    }
  });

  it('email: to the given address, or the workspace owner, with a subject and a text body', async () => {
    await onlyDestination({ channel: 'email', url: 'mailto:oncall@example.com' });
    const { alertId } = await raiseAlert(svc.stores.postgres, WS, policy);
    const [attempt] = await deliveredAttempts(alertId, 1);
    expect(attempt.target).to.equal('mailto:oncall@example.com');
    const mail = smtp.messages.at(-1)!;
    expect(mail.to).to.deep.equal(['oncall@example.com']);
    expect(mail.from).to.equal('alerts@alertmon.test');
    expect(mail.text).to.contain('Subject: [alertmon] CRITICAL: High latency');
    expect(mail.text).to.contain('p95 (estimated) per minute was 812.5, above the threshold 500');

    await onlyDestination({ channel: 'email' });
    const second = await raiseAlert(svc.stores.postgres, WS, policy);
    await resolveAlert(svc.stores.postgres, WS, second.alertId, policy);
    await deliveredAttempts(second.alertId, 2);
    const [triggered, resolved] = smtp.messages.slice(-2);
    expect(triggered!.to).to.deep.equal(['owner@example.com']);
    expect(resolved!.text).to.contain('Subject: [alertmon] Resolved: High latency');
  });

  it('email: a 5xx SMTP answer is final, recorded with the server reply', async () => {
    await onlyDestination({ channel: 'email', url: 'nobody@example.com' });
    smtp.refuseWith = 550;
    try {
      const { alertId } = await raiseAlert(svc.stores.postgres, WS, policy);
      const attempt = await waitFor('exhausted attempt', async () => {
        const res = await svc.request('GET', `/v1.0/alerts/${alertId}/deliveries`, { token });
        return res.body.find((a: { status: string }) => a.status === 'exhausted');
      });
      expect(attempt.error_message).to.match(/^smtp_permanent: SMTP server answered 550/);
    } finally {
      smtp.refuseWith = null;
    }
  });
});
