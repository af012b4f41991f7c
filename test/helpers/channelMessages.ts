// What the channels send, seen where they send it: the service with every channel pointed at
// local fakes, and the checks that a message cut to its provider's limit kept its text whole.
import { expect } from 'chai';
import { FakeHttpServer, FakeSmtpServer } from './fakeProviders.js';
import { startTestService, type TestService } from './service.js';

export interface ServiceWithFakeChannels {
  readonly svc: TestService;
  /** Slack, Discord and Telegram (and webhooks aimed at it) post here; it answers 200 as each of them would. */
  readonly provider: FakeHttpServer;
  readonly smtp: FakeSmtpServer;
  close(): Promise<void>;
}

/** The service in this process, delivering promptly, each chat channel's origin and the SMTP server being local fakes. */
export async function startWithFakeChannels(env: Record<string, string> = {}): Promise<ServiceWithFakeChannels> {
  const provider = await FakeHttpServer.start({ status: 200, body: { ok: true, result: {} } });
  const smtp = await FakeSmtpServer.start();
  const svc = await startTestService({
    env: {
      SLACK_WEBHOOK_ORIGIN: provider.origin,
      DISCORD_WEBHOOK_ORIGINS: provider.origin,
      TELEGRAM_API_ORIGIN: provider.origin,
      SMTP_URL: smtp.url,
      DELIVERY_POLL_INTERVAL_MS: '50',
      ...env,
    },
  });
  return {
    svc,
    provider,
    smtp,
    async close() {
      await svc.close();
      await provider.close();
      await smtp.close();
    },
  };
}

/** One emoji of seven code points (four surrogate pairs, three joiners). */
export const FAMILY = '👩‍👩‍👧‍👦';
/** One emoji of two regional indicators. */
export const FLAG = '🇩🇪';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** No emoji was cut: no lone surrogate, three joiners per family, two indicators per flag. */
export function expectWholeEmoji(text: string): void {
  expect(LONE_SURROGATE.test(text), 'no lone surrogate').to.equal(false);
  const families = text.split(FAMILY).length - 1;
  expect(text.split('\u200D').length - 1, 'no broken joined emoji').to.equal(3 * families);
  const flags = text.split(FLAG).length - 1;
  expect(text.match(/[\u{1F1E6}-\u{1F1FF}]/gu)?.length ?? 0, 'no half flag').to.equal(2 * flags);
}

/** The Subject header of a raw message, its RFC 2047 encoded words (as nodemailer writes long UTF-8 subjects) decoded. */
export function subjectOf(raw: string): string {
  const header = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)![1]!;
  const words = [...header.matchAll(/=\?utf-8\?([BQ])\?([^?]*)\?=/gi)];
  if (words.length === 0) return header.replace(/\r?\n[ \t]/g, ' ');
  const bytes = words.map(([, encoding, text]) =>
    encoding!.toUpperCase() === 'B'
      ? Buffer.from(text!, 'base64')
      : Buffer.from(
          text!.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
          'latin1',
        ),
  );
  return Buffer.concat(bytes).toString('utf8');
}
