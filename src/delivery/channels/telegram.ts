// Telegram Bot API sendMessage to credentials.chat_id, at TELEGRAM_API_ORIGIN. The bot token
// is part of the request path, so it is abbreviated in the recorded target and scrubbed
// from every message. A 429 carries parameters.retry_after (seconds) in the JSON answer.
import { abbreviateSecret } from '../../logger.js';
import { secretsOf } from '../../destinations/secrets.js';
import { messageText } from '../message.js';
import type { ChannelSender } from '../types.js';
import { jsonOf, postJson } from './httpPost.js';

const MAX_TEXT = 4096;

function retryAfterFromBody(body: string): number | null {
  const parameters = jsonOf(body)?.parameters as { retry_after?: unknown } | undefined;
  const seconds = parameters?.retry_after;
  return typeof seconds === 'number' && seconds >= 0 ? seconds * 1000 : null;
}

export const telegramChannel: ChannelSender = {
  target(destination, _ownerEmail, settings) {
    const token = String(destination.credentials?.bot_token ?? '');
    return `${settings.channels.telegramApiOrigin}/bot${abbreviateSecret(token)}/sendMessage?chat_id=${String(destination.credentials?.chat_id ?? '')}`;
  },

  send({ destination, notification, settings }) {
    const { bot_token: token, chat_id: chatId } = destination.credentials ?? {};
    return postJson(
      `${settings.channels.telegramApiOrigin}/bot${String(token)}/sendMessage`,
      { chat_id: chatId, text: messageText(notification).slice(0, MAX_TEXT), disable_web_page_preview: true },
      settings,
      { guard: false, secrets: secretsOf(destination), retryAfterFromBody },
    );
  },
};
