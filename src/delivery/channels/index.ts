import type { Channel } from '../../destinations/types.js';
import type { ChannelSender } from '../types.js';
import { discordChannel } from './discord.js';
import { emailChannel } from './email.js';
import { slackChannel } from './slack.js';
import { telegramChannel } from './telegram.js';
import { webhookChannel } from './webhook.js';

export const CHANNEL_SENDERS: Readonly<Record<Channel, ChannelSender>> = {
  email: emailChannel,
  webhook: webhookChannel,
  slack: slackChannel,
  discord: discordChannel,
  telegram: telegramChannel,
};
