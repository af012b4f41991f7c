// What Slack and Discord share: an incoming-webhook URL on the provider's origin whose last
// path segment is its token. Nothing is signed and no credential is kept; the token is
// abbreviated wherever the URL is shown and redacted from every provider answer.
import type { ErrorDetail } from '../errors.js';
import { abbreviateLastPathSegment, lastPathSegmentSecrets, noCredentials, parseHttpUrl, requireUrl } from './configRules.js';
import type { ChannelConfig, ChannelModule } from './model.js';

export interface ChatWebhookRules {
  readonly channel: string;
  /** What the url must be, for a destination without one: "a Slack incoming webhook URL (…)". */
  readonly expected: string;
  /** Whether the URL is one of the provider's webhooks. */
  readonly accepts: (url: URL) => boolean;
  /** Why a URL it does not accept is refused. */
  readonly refusal: string;
}

/** Every problem of a chat webhook destination's url and credentials. */
export function chatWebhookProblems(config: ChannelConfig, rules: ChatWebhookRules): ErrorDetail[] {
  const missing = requireUrl(config, rules.expected);
  const credentials = noCredentials(config, rules.channel);
  if (missing.length > 0) return [...missing, ...credentials];
  const url = parseHttpUrl(config.url!);
  return [...(url !== null && rules.accepts(url) ? [] : [{ path: '/url', message: rules.refusal }]), ...credentials];
}

/** A chat webhook channel's secrets and displays: its one secret is the URL's last path segment. */
export const TOKEN_IN_URL_PATH = {
  signsRequests: false,
  secretCredentials: [],
  presentUrl: abbreviateLastPathSegment,
  secretsOf: (config) => lastPathSegmentSecrets(config.url),
  target: (config) => abbreviateLastPathSegment(config.url ?? ''),
} satisfies Pick<ChannelModule, 'signsRequests' | 'secretCredentials' | 'presentUrl' | 'secretsOf' | 'target'>;
