import { channelModule, presentCredentials } from '../../channels/registry.js';
import type { Destination } from '../../destinations/model.js';
import { abbreviateSecret } from '../../redaction.js';

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/**
 * A destination as the API shows it: secrets abbreviated, timestamps ISO 8601 UTC. The signing
 * secret is shown in full only where it was just made (`revealSigningSecret`: create, rotation).
 */
export function destinationJson(d: Destination, { revealSigningSecret = false } = {}) {
  const overlapEnds = d.previous_signing_secret_expires_at;
  const signingSecret = d.signing_secret === null || revealSigningSecret ? d.signing_secret : abbreviateSecret(d.signing_secret);
  return {
    destination_id: d.destination_id,
    key: d.key,
    channel: d.channel,
    url: d.url === null ? null : channelModule(d.channel).presentUrl(d.url),
    credentials: presentCredentials(d.channel, d.credentials),
    scope: d.scope,
    policy_ids: d.policy_ids,
    enabled: d.enabled,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
    last_delivered_at: iso(d.last_delivered_at),
    last_error: d.last_error,
    signing_secret: signingSecret,
    previous_signing_secret_expires_at: overlapEnds !== null && overlapEnds.getTime() > Date.now() ? overlapEnds.toISOString() : null,
    group_window_seconds: d.group_window_seconds,
    title_template: d.title_template,
    message_template: d.message_template,
    body_template: d.body_template,
    format: d.format,
  };
}
