// What every channel module provides (src/channels/<channel>.ts), so destinations and
// delivery need nothing channel-specific: one registry line per channel (registry.ts).
import type { Notification } from '../notifications/model.js';
import type { Config } from '../config.js';
import type { Rendering } from './compose.js';
import type { PublicLinks } from '../publicLinks.js';
import type { ErrorDetail } from '../errors.js';
import type { Outcome } from './outcome.js';
import type { SigningSecrets } from './webhookSignature.js';

export interface Credentials {
  readonly bot_token?: string;
  readonly chat_id?: string | number;
  readonly authorization?: string;
}

/** Where and how a destination sends, as a channel sees it. */
export interface ChannelConfig extends SigningSecrets {
  readonly url: string | null;
  readonly credentials: Credentials | null;
  /** Webhooks: the body format (alertmon's, or Alertmanager's webhook v4); absent is alertmon's. */
  readonly format?: 'alertmon' | 'alertmanager';
}

/** Configuration the channels validate and send with, and the links messages carry back to the service. */
export type ChannelSettings = Pick<Config, 'delivery' | 'channels'> & { readonly links: PublicLinks };

export interface ValidationContext {
  readonly channels: Config['channels'];
  /** The workspace owner's email, where email destinations without a url send. */
  readonly ownerEmail: string | null;
}

export interface SendRequest {
  readonly destination: ChannelConfig;
  readonly notification: Notification;
  /** The workspace owner's email, for email destinations without a url. */
  readonly ownerEmail: string | null;
  readonly settings: ChannelSettings;
  /** The destination's templates and their variables; absent: the built-in messages. */
  readonly rendering?: Rendering;
}

export interface ChannelModule {
  /** Every problem of the url and credentials for this channel (pure; abbreviated values are checked by the registry). */
  configProblems(config: ChannelConfig, context: ValidationContext): ErrorDetail[];
  /** Whether its requests are signed: its destinations then hold a signing secret (src/channels/webhookSignature.ts). */
  readonly signsRequests: boolean;
  /** Credential fields that are secret: abbreviated when shown, kept when sent back as read. */
  readonly secretCredentials: readonly (keyof Credentials)[];
  /** The url as responses and logs show it, secrets abbreviated. */
  presentUrl(url: string): string;
  /** Every secret string of the configuration, for redacting free text such as provider errors. */
  secretsOf(config: ChannelConfig): string[];
  /** The target as attempts record it, secrets abbreviated. */
  target(config: ChannelConfig, ownerEmail: string | null, settings: ChannelSettings): string;
  /** Sends once and classifies the outcome; never throws for a provider's or network's failure. */
  send(request: SendRequest): Promise<Outcome>;
}
