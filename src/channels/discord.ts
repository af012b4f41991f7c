// Discord webhook (docs/api.md, Configuration per channel): the URL is on one of
// DISCORD_WEBHOOK_ORIGINS with /webhooks/ in its path, its last path segment is the token. The
// message goes in `content` (at most 2000 characters). Discord answers 204, or 429 with
// Retry-After and a JSON retry_after in seconds.
import type { MessageMarkup } from './clip.js';
import { BUILT_IN, chatMessage } from './compose.js';
import { chatWebhookProblems, TOKEN_IN_URL_PATH } from './chatWebhook.js';
import { jsonOf, postJson } from './httpPost.js';
import type { ChannelModule } from './model.js';

const MAX_CONTENT = 2000;

/** Discord markdown: the characters that format are escaped with a backslash; the headline is bold. */
const MARKDOWN: MessageMarkup = {
  escape: (text) => text.replace(/[\\*_~`|]/g, '\\$&'),
  open: '**',
  close: '**',
  atom: /\\./,
};

function retryAfterFromBody(body: string): number | null {
  const seconds = jsonOf(body)?.retry_after;
  return typeof seconds === 'number' && seconds >= 0 ? seconds * 1000 : null;
}

export const discordChannel: ChannelModule = {
  configProblems(config, { channels }) {
    const origins = channels.discordWebhookOrigins;
    return chatWebhookProblems(config, {
      channel: 'discord',
      expected: 'a Discord webhook URL (…/api/webhooks/<id>/<token>)',
      accepts: (url) => origins.includes(url.origin) && /\/webhooks\/[^/]+/.test(url.pathname),
      refusal: `must be a Discord webhook URL on ${origins.join(' or ')} whose path contains /webhooks/`,
    });
  },

  ...TOKEN_IN_URL_PATH,

  send({ destination, notification, settings, rendering = BUILT_IN }) {
    const content = chatMessage(notification, rendering, MAX_CONTENT, MARKDOWN);
    return postJson(destination.url!, { content, allowed_mentions: { parse: [] } }, settings, {
      guard: false,
      secrets: discordChannel.secretsOf(destination),
      retryAfterFromBody,
    });
  },
};
