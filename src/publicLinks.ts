// The links a message or the API hands out back to the service: the one home of their
// shape. PUBLIC_URL is the address recipients see; unset, it is the listener's own address,
// known once the process listens (PORT 0 picks a free port), so service.ts sets it then.
export class PublicLinks {
  /** `publicUrl`: PUBLIC_URL, or null when unset (`listener` then stands in for it). */
  static of(publicUrl: string | null, listener: string): PublicLinks {
    return new PublicLinks(publicUrl ?? listener, publicUrl !== null);
  }

  /** `configured`: whether `base` is a configured PUBLIC_URL rather than the listener's own address. */
  constructor(
    private base: string,
    private readonly configured = true,
  ) {}

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

  /** A schedule's calendar feed (RFC 5545), to subscribe to from a calendar application. */
  calendarUrl(scheduleId: string, icalToken: string): string {
    return `${this.base}/ical/schedules/${encodeURIComponent(scheduleId)}.ics?token=${encodeURIComponent(icalToken)}`;
  }

  /** The calendar link the API presents with a schedule: only at a configured PUBLIC_URL, for the reason presentedShareUrl gives. */
  presentedCalendarUrl(schedule: { readonly schedule_id: string; readonly ical_token: string }): string | null {
    return this.configured ? this.calendarUrl(schedule.schedule_id, schedule.ical_token) : null;
  }

  /**
   * The share link the API presents with a public event: only at a configured PUBLIC_URL.
   * Unset, the listener's address is no better than the one a client reached the service at
   * (behind a proxy, or HOST 0.0.0.0, it is worse), so the client builds the link itself.
   */
  presentedShareUrl(event: { readonly event_id: string; readonly share_token: string; readonly public: boolean }): string | null {
    return this.configured && event.public ? this.shareUrl(event.event_id, event.share_token) : null;
  }
}
