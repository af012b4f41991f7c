// The notification as channels show it: the acknowledge link's token turned into its URL
// (`alert.ack_url`, null where the message has none), in one place, before any channel (or
// template) reads the alert. The token itself is never shown.
import type { Notification } from '../notifications/model.js';
import type { PublicLinks } from '../publicLinks.js';

export function withLinks(notification: Notification, links: PublicLinks): Notification {
  const { ack_token, ...alert } = notification.alert;
  const ackUrl = typeof ack_token === 'string' && typeof alert.alert_id === 'string' ? links.ackUrl(alert.alert_id, ack_token) : null;
  return { ...notification, alert: { ...alert, ack_url: ackUrl } };
}
