// Generic webhook (docs/api.md, What is sent): POST {"type", "alert"} as JSON to an absolute
// http(s) URL, with the destination's Authorization value when set and an Idempotency-Key that
// stays the same across retries and re-sends, so a receiver can drop a repeat. Targets pass the
// SSRF guard.
import type { ErrorDetail } from '../errors.js';
import { abbreviateSecret, decoded } from '../redaction.js';
import { credentialSecrets, parseHttpUrl, requireUrl } from './configRules.js';
import { postJson } from './httpPost.js';
import type { ChannelModule } from './types.js';

function hideUrlPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = abbreviateSecret(decoded(parsed.password));
    return parsed.toString();
  } catch {
    return abbreviateSecret(url);
  }
}

function urlSecrets(url: string | null): string[] {
  if (url === null) return [];
  try {
    const { password } = new URL(url);
    return password ? [password, decoded(password)] : [];
  } catch {
    return []; // an unparsable URL holds no password we could find
  }
}

export const webhookChannel: ChannelModule = {
  configProblems(config) {
    const missing = requireUrl(config, 'the absolute http(s) URL to POST to');
    const problems: ErrorDetail[] = [...missing];
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

  secretCredentials: ['authorization'],
  presentUrl: hideUrlPassword,
  secretsOf: (config) => [...urlSecrets(config.url), ...credentialSecrets(config, webhookChannel.secretCredentials)],

  target(config) {
    return hideUrlPassword(config.url ?? '');
  },

  send({ destination, notification, settings }) {
    const authorization = destination.credentials?.authorization;
    return postJson(destination.url!, { type: notification.type, alert: notification.alert }, settings, {
      guard: true,
      secrets: webhookChannel.secretsOf(destination),
      headers: {
        'idempotency-key': notification.id,
        ...(typeof authorization === 'string' && authorization !== '' ? { authorization } : {}),
      },
    });
  },
};
