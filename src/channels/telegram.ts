// Telegram Bot API sendMessage to credentials.chat_id, at TELEGRAM_API_ORIGIN (docs/api.md,
// Configuration per channel); the message in HTML parse mode, cut to 4,096 characters. The bot token is part of the request path, so it is abbreviated
// in the recorded target and redacted from every message. A 429 carries
// parameters.retry_after (seconds) in the JSON answer.
import type { ErrorDetail } from '../errors.js';
import { abbreviateSecret } from '../redaction.js';
import { credentialSecrets } from './configRules.js';
import { jsonOf, postJson } from './httpPost.js';
import type { MessageMarkup } from './clip.js';
import { BUILT_IN, chatMessage } from './compose.js';
import type { ChannelModule } from './model.js';

const MAX_TEXT = 4096;

/**
 * Telegram's HTML parse mode: &, <, > and " escaped (a value may sit in a template's href), the
 * headline in <b>. A template's own tags are never cut, and a cut closes those it left open
 * (Telegram refuses unbalanced tags).
 */
const HTML: MessageMarkup = {
  escape: (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
  open: '<b>',
  close: '</b>',
  atom: /&(?:amp|lt|gt|quot);|<[^<>]*>/,
  closesTags: true,
};

function retryAfterFromBody(body: string): number | null {
  const parameters = jsonOf(body)?.parameters as { retry_after?: unknown } | undefined;
  const seconds = parameters?.retry_after;
  return typeof seconds === 'number' && seconds >= 0 ? seconds * 1000 : null;
}

export const telegramChannel: ChannelModule = {
  configProblems(config) {
    const problems: ErrorDetail[] = [];
    if (config.url !== null) problems.push({ path: '/url', message: 'must be null or absent for telegram (the chat is credentials.chat_id)' });
    const credentials = config.credentials;
    if (credentials === null) return [...problems, { path: '/credentials', message: 'is required: an object with bot_token and chat_id' }];
    if (typeof credentials.bot_token !== 'string' || !/^[A-Za-z0-9:_-]+$/.test(credentials.bot_token)) {
      problems.push({ path: '/credentials/bot_token', message: 'is required: the bot token from @BotFather (letters, digits, : _ -)' });
    }
    const chatId = credentials.chat_id;
    if (!(typeof chatId === 'number' || (typeof chatId === 'string' && /\S/.test(chatId)))) {
      problems.push({ path: '/credentials/chat_id', message: 'is required: the chat id (a number or @channel name)' });
    }
    if (credentials.authorization !== undefined) problems.push({ path: '/credentials/authorization', message: 'is not a telegram credential' });
    return problems;
  },

  // chat_id is an address, shown in full.
  signsRequests: false,
  secretCredentials: ['bot_token'],
  presentUrl: (url) => url,
  secretsOf: (config) => credentialSecrets(config, telegramChannel.secretCredentials),

  target(config, _ownerEmail, settings) {
    const token = String(config.credentials?.bot_token ?? '');
    return `${settings.channels.telegramApiOrigin}/bot${abbreviateSecret(token)}/sendMessage?chat_id=${String(config.credentials?.chat_id ?? '')}`;
  },

  send({ destination, notification, settings, rendering = BUILT_IN }) {
    const { bot_token: token, chat_id: chatId } = destination.credentials ?? {};
    return postJson(
      `${settings.channels.telegramApiOrigin}/bot${String(token)}/sendMessage`,
      { chat_id: chatId, text: chatMessage(notification, rendering, MAX_TEXT, HTML), parse_mode: 'HTML', disable_web_page_preview: true },
      settings,
      { guard: false, secrets: telegramChannel.secretsOf(destination), retryAfterFromBody },
    );
  },
};
