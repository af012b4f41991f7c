import type { Notification } from '../alerts/outbox.js';
import type { Config } from '../config.js';
import type { DestinationConfig } from '../destinations/types.js';
import type { Outcome } from './retryPolicy.js';

/** Configuration the channels send with. */
export type DeliverySettings = Pick<Config, 'delivery' | 'channels'>;

export interface SendRequest {
  readonly destination: DestinationConfig;
  readonly notification: Notification;
  /** The workspace owner's email, for email destinations without a url. */
  readonly ownerEmail: string | null;
  readonly settings: DeliverySettings;
}

/** One channel: where it sends (for the record) and how. */
export interface ChannelSender {
  /** The target as attempts record it, secrets abbreviated. */
  target(destination: DestinationConfig, ownerEmail: string | null, settings: DeliverySettings): string;
  /** Sends once and classifies the outcome; never throws for a provider's or network's failure. */
  send(request: SendRequest): Promise<Outcome>;
}
