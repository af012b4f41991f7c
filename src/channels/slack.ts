// Slack incoming webhook (docs/api.md, Configuration per channel): the URL is on
// SLACK_WEBHOOK_ORIGIN under /services/, its last path segment is the token. The message is
// mrkdwn in one section block (and in `text`, the notification's fallback), cut to 3,000
// characters. Slack answers 200 "ok", 4xx with a reason word (invalid_payload,
// no_service, channel_is_archived …), 429 with Retry-After.
import type { MessageMarkup } from './clip.js';
import { BUILT_IN, chatMessage } from './compose.js';
import { chatWebhookProblems, TOKEN_IN_URL_PATH } from './chatWebhook.js';
import { postJson } from './httpPost.js';
import type { ChannelModule } from './model.js';

/** Slack's limit for a section block's text. */
const MAX_SECTION_TEXT = 3000;

/** Slack's mrkdwn treats &, < and > as markup; the headline is bold. A template's <link|text> is never cut. */
const MRKDWN: MessageMarkup = {
  escape: (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'),
  open: '*',
  close: '*',
  atom: /&(?:amp|lt|gt);|<[^<>]*>/,
};

export const slackChannel: ChannelModule = {
  configProblems(config, { channels }) {
    const origin = channels.slackWebhookOrigin;
    return chatWebhookProblems(config, {
      channel: 'slack',
      expected: `a Slack incoming webhook URL (${origin}/services/…)`,
      accepts: (url) => url.origin === origin && /^\/services\/[^/]+/.test(url.pathname),
      refusal: `must be a Slack incoming webhook URL starting with ${origin}/services/`,
    });
  },

  ...TOKEN_IN_URL_PATH,

  send({ destination, notification, settings, rendering = BUILT_IN }) {
    const text = chatMessage(notification, rendering, MAX_SECTION_TEXT, MRKDWN);
    // `text` is the notification's fallback; the block is what the channel shows.
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text } }];
    return postJson(destination.url!, { text, blocks }, settings, { guard: false, secrets: slackChannel.secretsOf(destination) });
  },
};
