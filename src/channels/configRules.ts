// Rules and displays several channels share: an http(s) URL, a required url, no credentials,
// and a webhook URL whose last path segment is its token (Slack, Discord).
import type { ErrorDetail } from '../errors.js';
import { abbreviateSecret, decoded, secretForms } from '../redaction.js';
import type { ChannelConfig } from './model.js';

export function parseHttpUrl(url: string): URL | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed : null;
  } catch {
    return null;
  }
}

export const noCredentials = (config: ChannelConfig, channel: string): ErrorDetail[] =>
  config.credentials === null ? [] : [{ path: '/credentials', message: `must be null or absent for ${channel}` }];

export const requireUrl = (config: ChannelConfig, what: string): ErrorDetail[] =>
  config.url === null ? [{ path: '/url', message: `is required: ${what}` }] : [];

/** The URL with its last path segment (the token of a Slack or Discord webhook) abbreviated. */
export function abbreviateLastPathSegment(url: string): string {
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

/** The last path segment of a URL, as written and decoded. */
export function lastPathSegmentSecrets(url: string | null): string[] {
  const last = url?.split('/').pop();
  return last ? [last, decoded(last)] : [];
}

/** The values of the secret credential fields, in every form text may carry them (secretForms). */
export function credentialSecrets(config: ChannelConfig, names: readonly string[]): string[] {
  const secrets: string[] = [];
  for (const name of names) {
    const value = (config.credentials as Record<string, unknown> | null)?.[name];
    if (typeof value === 'string' && value !== '') secrets.push(...secretForms(value));
  }
  return secrets;
}
