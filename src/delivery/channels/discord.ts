// Discord webhook: the message in `content` (at most 2000 characters). Discord answers 204,
// or 429 with Retry-After and a JSON retry_after in seconds.
import { presentUrl, secretsOf } from '../../destinations/secrets.js';
import { messageLines } from '../message.js';
import type { ChannelSender } from '../types.js';
import { jsonOf, postJson } from './httpPost.js';

const MAX_CONTENT = 2000;

function retryAfterFromBody(body: string): number | null {
  const seconds = jsonOf(body)?.retry_after;
  return typeof seconds === 'number' && seconds >= 0 ? seconds * 1000 : null;
}

export const discordChannel: ChannelSender = {
  target(destination) {
    return presentUrl('discord', destination.url ?? '');
  },

  send({ destination, notification, settings }) {
    const [headline, ...rest] = messageLines(notification);
    const content = [`**${headline}**`, ...rest].join('\n').slice(0, MAX_CONTENT);
    return postJson(destination.url!, { content, allowed_mentions: { parse: [] } }, settings, {
      guard: false,
      secrets: secretsOf(destination),
      retryAfterFromBody,
    });
  },
};
