// Email over SMTP (nodemailer) at SMTP_URL, from EMAIL_FROM, to the destination's address
// (`user@host` or `mailto:user@host`) or, without one, the workspace owner's. SMTP replies classify like HTTP: 4xx is
// temporary (retried), 5xx permanent (final); a lost connection is retried.
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import { redactKnownSecrets, secretList, userinfoSecrets } from '../redaction.js';
import { clipText } from './clip.js';
import { noCredentials } from './configRules.js';
import { BUILT_IN, emailContent } from './compose.js';
import { delivered, failure, shortAnswer, type Outcome } from './outcome.js';
import type { ChannelModule, ChannelSettings } from './model.js';

/** Subjects longer than this are cut: mail clients show less, and some servers refuse long header lines. */
const MAX_SUBJECT = 200;

const EMAIL_ADDRESS = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.?[^\s@<>(),;:"]*$/;

/** `user@host` or `mailto:user@host` → `user@host`; null when it is neither. */
function emailAddressOf(url: string): string | null {
  const address = url.toLowerCase().startsWith('mailto:') ? url.slice('mailto:'.length) : url;
  return EMAIL_ADDRESS.test(address) ? address : null;
}

const transports = new Map<string, Transporter>();

function transportFor(settings: ChannelSettings): Transporter {
  const key = `${settings.channels.smtpUrl}|${settings.delivery.timeoutMs}`;
  let transport = transports.get(key);
  if (!transport) {
    transport = nodemailer.createTransport(settings.channels.smtpUrl!, {
      connectionTimeout: settings.delivery.timeoutMs,
      greetingTimeout: settings.delivery.timeoutMs,
      socketTimeout: settings.delivery.timeoutMs,
    } as never);
    transports.set(key, transport);
  }
  return transport;
}

function recipient(url: string | null, ownerEmail: string | null): string | null {
  return url === null ? ownerEmail : emailAddressOf(url);
}

interface SmtpError {
  code?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

const smtpSecrets = (settings: ChannelSettings): string[] => secretList(userinfoSecrets(settings.channels.smtpUrl));

function classifySmtpError(err: unknown, settings: ChannelSettings): Outcome {
  const e = (typeof err === 'object' && err !== null ? err : {}) as SmtpError;
  const scrub = (text: string) => redactKnownSecrets(text, smtpSecrets(settings));
  const answer = shortAnswer(scrub(e.response ?? ''));
  if (typeof e.responseCode === 'number') {
    const permanent = e.responseCode >= 500;
    return failure(
      permanent ? 'final' : 'retry',
      permanent ? 'smtp_permanent' : 'smtp_temporary',
      `SMTP server answered ${e.responseCode}${answer ? `: ${answer}` : ''}`,
      answer,
    );
  }
  const reason = e.code === 'ETIMEDOUT' ? 'timeout' : 'network_error';
  return failure(
    'retry',
    reason,
    `SMTP ${reason === 'timeout' ? 'time-out' : 'connection failed'}${e.code ? ` (${e.code})` : ''}: ${scrub(e.message ?? String(err))}`,
  );
}

export const emailChannel: ChannelModule = {
  configProblems(config, { ownerEmail }) {
    const problems = noCredentials(config, 'email');
    if (config.url !== null && emailAddressOf(config.url) === null) {
      problems.push({ path: '/url', message: 'must be an email address (user@host or mailto:user@host)' });
    }
    if (config.url === null && ownerEmail === null) {
      problems.push({ path: '/url', message: 'is required: the workspace has no owner email to send to; give an address (user@host)' });
    }
    return problems;
  },

  signsRequests: false,
  secretCredentials: [],
  presentUrl: (url) => url,
  secretsOf: () => [],

  target(config, ownerEmail) {
    return `mailto:${recipient(config.url, ownerEmail) ?? '(workspace owner, no address)'}`;
  },

  async send({ destination, notification, ownerEmail, settings, rendering = BUILT_IN }) {
    const to = recipient(destination.url, ownerEmail);
    if (to === null) return failure('final', 'not_configured', 'no recipient: the destination has no address and the workspace owner has no email');
    // Retried, not dropped: the operator can set SMTP_URL and restart.
    if (settings.channels.smtpUrl === null) return failure('retry', 'not_configured', 'SMTP_URL is not configured; email cannot be sent');
    const content = emailContent(notification, rendering);
    try {
      const info = await transportFor(settings).sendMail({
        from: settings.channels.emailFrom,
        to,
        subject: clipText(content.subject, MAX_SUBJECT),
        text: content.text,
        ...(content.html === null ? {} : { html: content.html }),
        headers: { 'X-Alertmon-Notification-Id': notification.id },
      });
      return (info.rejected ?? []).length > 0 ? failure('final', 'smtp_permanent', `SMTP server refused the recipient ${to}`) : delivered(null);
    } catch (err) {
      return classifySmtpError(err, settings);
    }
  },
};
