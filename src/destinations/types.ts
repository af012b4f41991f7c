import type { Channel } from '../channels/registry.js';
import type { Credentials } from '../channels/types.js';
import type { SigningSecrets } from '../channels/webhookSignature.js';

export { CHANNELS, type Channel } from '../channels/registry.js';
export type { Credentials } from '../channels/types.js';

export const SCOPES = ['all', 'policies'] as const;
export type Scope = (typeof SCOPES)[number];

/** What decides where and how a destination sends. */
export interface DestinationConfig extends SigningSecrets {
  readonly channel: Channel;
  readonly url: string | null;
  readonly credentials: Credentials | null;
}

export interface Destination extends DestinationConfig {
  readonly destination_id: string;
  readonly workspace_id: string;
  readonly scope: Scope;
  readonly policy_ids: string[];
  readonly enabled: boolean;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly last_delivered_at: Date | null;
  readonly last_error: string | null;
  /** Webhooks: the secret requests are signed with (null for other channels). */
  readonly signing_secret: string | null;
  /** Webhooks: the secret before the last rotation, still signing until previous_signing_secret_expires_at. */
  readonly previous_signing_secret: string | null;
  readonly previous_signing_secret_expires_at: Date | null;
}

/** A destination as a client writes it: every field optional on PUT. */
export interface DestinationInput {
  readonly channel?: string;
  readonly url?: string | null;
  readonly credentials?: Credentials | null;
  readonly scope?: string;
  readonly policy_ids?: readonly string[];
  readonly enabled?: boolean;
}
