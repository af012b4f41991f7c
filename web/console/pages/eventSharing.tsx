// An event's share link: share, copy, replace, stop sharing.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import type { EventDefinition } from '../types.js';

export function Sharing({ event, reloadEvents }: { event: EventDefinition; reloadEvents: () => void }): JSX.Element {
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The service's PUBLIC_URL when it has one (the address the link's recipients see), else the address this console was reached at.
  const link = event.share_url ?? `${location.origin}/share/events/${event.event_id}?token=${encodeURIComponent(event.share_token)}`;
  const act = async (what: () => Promise<unknown>, done: string) => {
    setBusy(true);
    try {
      await what();
      setMessage(done);
      reloadEvents();
    } catch (err) {
      setMessage(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const setPublic = (on: boolean) =>
    act(
      () => api('PUT', `/v1.0/events/${event.event_id}`, { public: on }),
      on ? 'The event is shared: anyone with the link can see its chart.' : 'The event is no longer shared.',
    );
  const rotate = () => {
    if (confirm('Replace the share link? The current link stops working at once.'))
      void act(() => api('POST', `/v1.0/events/${event.event_id}/share-token`), 'The share link was replaced; the old one no longer works.');
  };
  return (
    <section class="panel" aria-labelledby="sharing-heading">
      <h3 id="sharing-heading">Share link</h3>
      {event.public ? (
        <>
          <label for="share-link">Anyone with this link can see the event's title and rollup chart (not its analytics):</label>
          <div class="copy-row">
            <input id="share-link" type="text" readOnly value={link} onFocus={(e) => e.currentTarget.select()} />
            <button type="button" onClick={() => void navigator.clipboard?.writeText(link).then(() => setMessage('Link copied.'))}>
              Copy
            </button>
          </div>
          <div class="button-row">
            <a href={link} target="_blank" rel="noopener noreferrer">
              Open the share page
            </a>
            <button type="button" disabled={busy} onClick={rotate}>
              Replace link
            </button>
            <button type="button" class="danger" disabled={busy} onClick={() => void setPublic(false)}>
              Stop sharing
            </button>
          </div>
        </>
      ) : (
        <>
          <p>This event is private. Sharing gives it a page anyone with the link can open.</p>
          <button type="button" disabled={busy} onClick={() => void setPublic(true)}>
            Share this event
          </button>
        </>
      )}
      <p role="status">{message}</p>
    </section>
  );
}
