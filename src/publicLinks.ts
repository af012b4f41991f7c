// The links a message carries back to the service: the one home of their shape. PUBLIC_URL
// is the address recipients see; unset, it is the listener's own address, known once the
// process listens (PORT 0 picks a free port), so service.ts sets it then.
export class PublicLinks {
  constructor(private base: string) {}

  get publicUrl(): string {
    return this.base;
  }

  /** Called once the listener's address is known, when PUBLIC_URL is not set. */
  listeningAt(url: string): void {
    this.base = url.replace(/\/+$/, '');
  }

  /** The acknowledge link of an alert with one of its link tokens: `<PUBLIC_URL>/ack/<alert_id>?token=<token>`. */
  ackUrl(alertId: string, token: string): string {
    return `${this.base}/ack/${encodeURIComponent(alertId)}?token=${encodeURIComponent(token)}`;
  }

  /** A public event's share page. */
  shareUrl(eventId: string, shareToken: string): string {
    return `${this.base}/share/events/${encodeURIComponent(eventId)}?token=${encodeURIComponent(shareToken)}`;
  }
}
