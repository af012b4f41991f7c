// Per-channel rules for a destination's url and credentials (docs/api.md, Configuration per channel).
// Pure: the caller supplies the provider origins and the workspace owner's address, and
// gets every problem at once as {path, message}.
import type { ErrorDetail } from '../errors.js';
import { looksAbbreviated, SECRET_CREDENTIALS } from './secrets.js';
import type { DestinationConfig } from './types.js';

export interface ProviderOrigins {
  readonly slackWebhookOrigin: string;
  readonly discordWebhookOrigins: readonly string[];
}

export interface ValidationContext {
  readonly providers: ProviderOrigins;
  /** The workspace owner's email, where email destinations without a url send. */
  readonly ownerEmail: string | null;
}

const EMAIL_ADDRESS = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.?[^\s@<>(),;:"]*$/;

/** `user@host` or `mailto:user@host` → `user@host`; null when it is neither. */
export function emailAddressOf(url: string): string | null {
  const address = url.toLowerCase().startsWith('mailto:') ? url.slice('mailto:'.length) : url;
  return EMAIL_ADDRESS.test(address) ? address : null;
}

function parseHttpUrl(url: string): URL | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed : null;
  } catch {
    return null;
  }
}

type Rule = (config: DestinationConfig, context: ValidationContext) => ErrorDetail[];

const noCredentials = (config: DestinationConfig): ErrorDetail[] =>
  config.credentials === null ? [] : [{ path: '/credentials', message: `must be null or absent for ${config.channel}` }];

const requireUrl = (config: DestinationConfig, what: string): ErrorDetail[] => (config.url === null ? [{ path: '/url', message: `is required: ${what}` }] : []);

const RULES: Record<DestinationConfig['channel'], Rule> = {
  slack(config, { providers }) {
    const missing = requireUrl(config, `a Slack incoming webhook URL (${providers.slackWebhookOrigin}/services/…)`);
    if (missing.length > 0) return [...missing, ...noCredentials(config)];
    const url = parseHttpUrl(config.url!);
    const valid = url !== null && url.origin === providers.slackWebhookOrigin && /^\/services\/[^/]+/.test(url.pathname);
    return [
      ...(valid ? [] : [{ path: '/url', message: `must be a Slack incoming webhook URL starting with ${providers.slackWebhookOrigin}/services/` }]),
      ...noCredentials(config),
    ];
  },

  discord(config, { providers }) {
    const missing = requireUrl(config, 'a Discord webhook URL (…/api/webhooks/<id>/<token>)');
    if (missing.length > 0) return [...missing, ...noCredentials(config)];
    const url = parseHttpUrl(config.url!);
    const valid = url !== null && providers.discordWebhookOrigins.includes(url.origin) && /\/webhooks\/[^/]+/.test(url.pathname);
    return [
      ...(valid
        ? []
        : [{ path: '/url', message: `must be a Discord webhook URL on ${providers.discordWebhookOrigins.join(' or ')} whose path contains /webhooks/` }]),
      ...noCredentials(config),
    ];
  },

  telegram(config) {
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

  webhook(config) {
    const missing = requireUrl(config, 'the absolute http(s) URL to POST to');
    const problems = [...missing];
    if (missing.length === 0 && parseHttpUrl(config.url!) === null) {
      problems.push({ path: '/url', message: 'must be an absolute http:// or https:// URL' });
    }
    const credentials = config.credentials;
    if (credentials !== null) {
      for (const name of ['bot_token', 'chat_id'] as const) {
        if (credentials[name] !== undefined) problems.push({ path: `/credentials/${name}`, message: 'is not a webhook credential' });
      }
      if (credentials.authorization !== undefined && (typeof credentials.authorization !== 'string' || !/\S/.test(credentials.authorization))) {
        problems.push({ path: '/credentials/authorization', message: 'must be the Authorization header value to send' });
      }
    }
    return problems;
  },

  email(config, { ownerEmail }) {
    const problems = noCredentials(config);
    if (config.url !== null && emailAddressOf(config.url) === null) {
      problems.push({ path: '/url', message: 'must be an email address (user@host or mailto:user@host)' });
    }
    if (config.url === null && ownerEmail === null) {
      problems.push({ path: '/url', message: 'is required: the workspace has no owner email to send to; give an address (user@host)' });
    }
    return problems;
  },
};

/** Every problem of a destination's channel configuration; empty when it can send. */
export function channelConfigProblems(config: DestinationConfig, context: ValidationContext): ErrorDetail[] {
  const problems = RULES[config.channel](config, context);
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
