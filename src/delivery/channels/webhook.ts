// Generic webhook: POST {"type", "alert"} as JSON (docs/api.md, What is sent), with the destination's
// Authorization value when set and an Idempotency-Key that stays the same across retries
// and re-sends, so a receiver can drop a repeat. Targets pass the SSRF guard.
import { presentUrl, secretsOf } from '../../destinations/secrets.js';
import type { ChannelSender } from '../types.js';
import { postJson } from './httpPost.js';

export const webhookChannel: ChannelSender = {
  target(destination) {
    return presentUrl('webhook', destination.url ?? '');
  },

  send({ destination, notification, settings }) {
    const authorization = destination.credentials?.authorization;
    return postJson(destination.url!, { type: notification.type, alert: notification.alert }, settings, {
      guard: true,
      secrets: secretsOf(destination),
      headers: {
        'idempotency-key': notification.id,
        ...(typeof authorization === 'string' && authorization !== '' ? { authorization } : {}),
      },
    });
  },
};
