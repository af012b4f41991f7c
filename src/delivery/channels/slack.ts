// Slack incoming webhook: a readable message in `text` (mrkdwn). Slack answers 200 "ok",
// 4xx with a reason word (invalid_payload, no_service, channel_is_archived …), 429 with
// Retry-After.
import { presentUrl, secretsOf } from '../../destinations/secrets.js';
import { messageLines } from '../message.js';
import type { ChannelSender } from '../types.js';
import { postJson } from './httpPost.js';

/** Slack's mrkdwn treats &, < and > as markup. */
const escapeMrkdwn = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export const slackChannel: ChannelSender = {
  target(destination) {
    return presentUrl('slack', destination.url ?? '');
  },

  send({ destination, notification, settings }) {
    const [headline, ...rest] = messageLines(notification).map(escapeMrkdwn);
    const text = [`*${headline}*`, ...rest].join('\n');
    return postJson(destination.url!, { text }, settings, { guard: false, secrets: secretsOf(destination) });
  },
};
