// Secrets of a destination never leave the service in full (docs/api.md, Secrets): the token path
// segment of a Slack or Discord URL, a password in a webhook URL, credentials.bot_token and
// credentials.authorization are shown as their first 4 characters then "…". The same
// functions abbreviate delivery targets and scrub error messages before they are stored
// or logged.
import { abbreviateSecret } from '../logger.js';
import type { Channel, Credentials, DestinationConfig } from './types.js';

export const ABBREVIATION_MARK = '…';

/** Credential fields that are secret; chat_id is an address, shown in full. */
export const SECRET_CREDENTIALS = ['bot_token', 'authorization'] as const;

/** decodeURIComponent that keeps a malformed %-sequence as it is. */
export function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export function looksAbbreviated(value: string): boolean {
  return value.endsWith(ABBREVIATION_MARK);
}

/** The URL as responses show it. */
export function presentUrl(channel: Channel, url: string): string {
  if (channel === 'slack' || channel === 'discord') return abbreviateLastPathSegment(url);
  if (channel === 'webhook') return hideUrlPassword(url);
  return url;
}

function abbreviateLastPathSegment(url: string): string {
  try {
    const parsed = new URL(url);
    const segments = parsed.pathname.split('/');
    const last = segments.length - 1;
    segments[last] = abbreviateSecret(decoded(segments[last]!));
    return `${parsed.origin}${segments.join('/')}`;
  } catch {
    return abbreviateSecret(url);
  }
}

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

export function presentCredentials(credentials: Credentials | null): Credentials | null {
  if (credentials === null) return null;
  const shown: Record<string, unknown> = { ...credentials };
  for (const name of SECRET_CREDENTIALS) {
    const value = shown[name];
    if (typeof value === 'string') shown[name] = abbreviateSecret(value);
  }
  return shown as Credentials;
}

/** Every secret string of a destination, for scrubbing free text such as provider errors. */
export function secretsOf(config: DestinationConfig): string[] {
  const secrets: string[] = [];
  if (config.url !== null && (config.channel === 'slack' || config.channel === 'discord')) {
    const last = config.url.split('/').pop();
    if (last) secrets.push(last, decoded(last));
  }
  if (config.url !== null && config.channel === 'webhook') {
    try {
      const { password } = new URL(config.url);
      if (password) secrets.push(password, decoded(password));
    } catch {
      // an unparsable URL holds no password we could find
    }
  }
  for (const name of SECRET_CREDENTIALS) {
    const value = config.credentials?.[name];
    if (typeof value === 'string' && value !== '') secrets.push(value, encodeURIComponent(value));
  }
  // Longest first, so a secret that contains another is replaced whole.
  return [...new Set(secrets.filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
}

/** Replaces every occurrence of each secret with its abbreviation. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let scrubbed = text;
  for (const secret of secrets) scrubbed = scrubbed.split(secret).join(abbreviateSecret(secret));
  return scrubbed;
}
