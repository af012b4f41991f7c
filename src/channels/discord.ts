// Discord webhook (docs/api.md, Configuration per channel): the URL is on one of
// DISCORD_WEBHOOK_ORIGINS with /webhooks/ in its path, its last path segment is the token. The
// message goes in `content` (at most 2000 characters). Discord answers 204, or 429 with
// Retry-After and a JSON retry_after in seconds.
import type { MessageMarkup } from './clip.js';
import { BUILT_IN, chatMessage } from './compose.js';
import { abbreviateLastPathSegment, lastPathSegmentSecrets, noCredentials, parseHttpUrl, requireUrl } from './configRules.js';
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
    const missing = requireUrl(config, 'a Discord webhook URL (…/api/webhooks/<id>/<token>)');
    if (missing.length > 0) return [...missing, ...noCredentials(config, 'discord')];
    const url = parseHttpUrl(config.url!);
    const valid = url !== null && origins.includes(url.origin) && /\/webhooks\/[^/]+/.test(url.pathname);
    return [
      ...(valid ? [] : [{ path: '/url', message: `must be a Discord webhook URL on ${origins.join(' or ')} whose path contains /webhooks/` }]),
      ...noCredentials(config, 'discord'),
    ];
  },

  signsRequests: false,
  secretCredentials: [],
  presentUrl: abbreviateLastPathSegment,
  secretsOf: (config) => lastPathSegmentSecrets(config.url),

  target(config) {
    return abbreviateLastPathSegment(config.url ?? '');
  },

  send({ destination, notification, settings, rendering = BUILT_IN }) {
    const content = chatMessage(notification, rendering, MAX_CONTENT, MARKDOWN);
    return postJson(destination.url!, { content, allowed_mentions: { parse: [] } }, settings, {
      guard: false,
      secrets: discordChannel.secretsOf(destination),
      retryAfterFromBody,
    });
  },
};
