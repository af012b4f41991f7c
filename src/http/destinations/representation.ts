import { channelModule, presentCredentials } from '../../channels/registry.js';
import type { Destination } from '../../destinations/types.js';

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/** A destination as the API shows it: secrets abbreviated, timestamps ISO 8601 UTC. */
export function destinationJson(d: Destination) {
  return {
    destination_id: d.destination_id,
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
  };
}
