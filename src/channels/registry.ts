// The channels a destination can use, one module each (src/channels/<channel>.ts). Destinations
// validate and show their configuration, and delivery targets and sends, through this table
// only: a new channel is one module and one line here.
import type { ErrorDetail } from '../errors.js';
import { abbreviateSecret, looksAbbreviated } from '../redaction.js';
import { discordChannel } from './discord.js';
import { emailChannel } from './email.js';
import { slackChannel } from './slack.js';
import { telegramChannel } from './telegram.js';
import type { ChannelConfig, ChannelModule, Credentials, ValidationContext } from './model.js';
import { webhookChannel } from './webhook.js';

const CHANNEL_MODULES = {
  email: emailChannel,
  webhook: webhookChannel,
  slack: slackChannel,
  discord: discordChannel,
  telegram: telegramChannel,
} as const satisfies Record<string, ChannelModule>;

export type Channel = keyof typeof CHANNEL_MODULES;
export const CHANNELS = Object.keys(CHANNEL_MODULES) as readonly Channel[];

/** Every credential field that is secret for some channel. */
const SECRET_CREDENTIALS = [...new Set(Object.values(CHANNEL_MODULES).flatMap((m) => m.secretCredentials))];

export function channelModule(channel: Channel): ChannelModule {
  return CHANNEL_MODULES[channel];
}

export function isChannel(name: string): name is Channel {
  return Object.hasOwn(CHANNEL_MODULES, name);
}

/** Every problem of a destination's channel configuration; empty when it can send. */
export function channelConfigProblems(channel: Channel, config: ChannelConfig, context: ValidationContext): ErrorDetail[] {
  const problems = channelModule(channel).configProblems(config, context);
  // An abbreviated value is what a client read, never the secret itself.
  for (const name of SECRET_CREDENTIALS) {
    const value = config.credentials?.[name];
    if (typeof value === 'string' && looksAbbreviated(value)) {
      problems.push({
        path: `/credentials/${name}`,
        message: 'is abbreviated (ends with …); send the full secret, or omit credentials to keep the stored one',
      });
    }
  }
  if (config.url?.includes('…')) {
    problems.push({ path: '/url', message: 'is abbreviated (contains …); send the full URL, or omit url to keep the stored one' });
  }
  return problems;
}

/** The credentials as responses show them: the channel's secret fields abbreviated. */
export function presentCredentials(channel: Channel, credentials: Credentials | null): Credentials | null {
  if (credentials === null) return null;
  const shown: Record<string, unknown> = { ...credentials };
  for (const name of channelModule(channel).secretCredentials) {
    const value = shown[name];
    if (typeof value === 'string') shown[name] = abbreviateSecret(value);
  }
  return shown as Credentials;
}

/**
 * The configuration a PUT stores: a secret sent back exactly as it was read (abbreviated) is
 * the stored one; an omitted url or credentials keeps the stored ones.
 */
export function mergeSentBack(
  channel: Channel,
  current: ChannelConfig,
  given: { readonly url?: string | null; readonly credentials?: Credentials | null },
): ChannelConfig {
  return { url: mergeUrl(channel, current.url, given.url), credentials: mergeCredentials(channel, current.credentials, given.credentials) };
}

function mergeUrl(channel: Channel, current: string | null, url: string | null | undefined): string | null {
  if (url === undefined) return current;
  if (url !== null && current !== null && url === channelModule(channel).presentUrl(current)) return current;
  return url;
}

function mergeCredentials(channel: Channel, current: Credentials | null, given: Credentials | null | undefined): Credentials | null {
  if (given === undefined) return current;
  if (given === null) return null;
  const merged: Record<string, unknown> = { ...given };
  for (const name of channelModule(channel).secretCredentials) {
    const stored = current?.[name];
    if (typeof stored === 'string' && merged[name] === abbreviateSecret(stored)) merged[name] = stored;
  }
  return merged as Credentials;
}
