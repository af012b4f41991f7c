// Email over SMTP (nodemailer) at SMTP_URL, from EMAIL_FROM, to the destination's address
// or, without one, the workspace owner's. SMTP replies classify like HTTP: 4xx is
// temporary (retried), 5xx permanent (final); a lost connection is retried.
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import { decoded, scrubSecrets } from '../../destinations/secrets.js';
import { emailAddressOf } from '../../destinations/validation.js';
import { emailSubject, messageText } from '../message.js';
import { delivered, failure, shortAnswer, type Outcome } from '../retryPolicy.js';
import type { ChannelSender, DeliverySettings } from '../types.js';

const transports = new Map<string, Transporter>();

function transportFor(settings: DeliverySettings): Transporter {
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

function smtpSecrets(settings: DeliverySettings): string[] {
  try {
    const password = settings.channels.smtpUrl === null ? '' : new URL(settings.channels.smtpUrl).password;
    return password === '' ? [] : [password, decoded(password)];
  } catch {
    return [];
  }
}

function classifySmtpError(err: unknown, settings: DeliverySettings): Outcome {
  const e = (typeof err === 'object' && err !== null ? err : {}) as SmtpError;
  const scrub = (text: string) => scrubSecrets(text, smtpSecrets(settings));
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

export const emailChannel: ChannelSender = {
  target(destination, ownerEmail) {
    return `mailto:${recipient(destination.url, ownerEmail) ?? '(workspace owner, no address)'}`;
  },

  async send({ destination, notification, ownerEmail, settings }) {
    const to = recipient(destination.url, ownerEmail);
    if (to === null) return failure('final', 'not_configured', 'no recipient: the destination has no address and the workspace owner has no email');
    // Retried, not dropped: the operator can set SMTP_URL and restart.
    if (settings.channels.smtpUrl === null) return failure('retry', 'not_configured', 'SMTP_URL is not configured; email cannot be sent');
    try {
      const info = await transportFor(settings).sendMail({
        from: settings.channels.emailFrom,
        to,
        subject: emailSubject(notification),
        text: messageText(notification),
        headers: { 'X-Alertmon-Notification-Id': notification.id },
      });
      return (info.rejected ?? []).length > 0 ? failure('final', 'smtp_permanent', `SMTP server refused the recipient ${to}`) : delivered(null);
    } catch (err) {
      return classifySmtpError(err, settings);
    }
  },
};
