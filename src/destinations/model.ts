import type { Channel } from '../channels/registry.js';
import type { DestinationTemplates } from '../channels/templates.js';
import type { Credentials } from '../channels/model.js';
import type { SigningSecrets } from '../channels/webhookSignature.js';

export { CHANNELS, type Channel } from '../channels/registry.js';
export type { Credentials } from '../channels/model.js';

export const SCOPES = ['all', 'policies'] as const;
export type Scope = (typeof SCOPES)[number];

/** What decides where and how a destination sends. */
export interface DestinationConfig extends SigningSecrets {
  readonly channel: Channel;
  readonly url: string | null;
  readonly credentials: Credentials | null;
}

/** How a destination's messages read and how they are grouped (docs/api.md, Grouping; Message templates). */
export interface MessageOptions extends DestinationTemplates {
  /** 0: each notification its own message; N: triggered (or resolved) notifications within N seconds of the first are sent as one. */
  readonly group_window_seconds: number;
  /** Webhooks: alertmon's body, or Alertmanager's webhook v4 (src/channels/alertmanagerBody.ts); alertmon for other channels. */
  readonly format: WebhookFormat;
}

export const WEBHOOK_FORMATS = ['alertmon', 'alertmanager'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export const MAX_GROUP_WINDOW_SECONDS = 3600;

export interface Destination extends DestinationConfig, MessageOptions {
  readonly destination_id: string;
  readonly workspace_id: string;
  /** Its key in an alerting-as-code document (docs/as-code.md): unique per workspace and kind; null: none yet. */
  readonly key: string | null;
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
  readonly group_window_seconds?: number;
  readonly title_template?: string | null;
  readonly message_template?: string | null;
  readonly body_template?: string | null;
  readonly format?: string;
}
