// Events: the list, and for the chosen event its rollup chart, the ten window comparisons
// side by side, and its share link.
import type { JSX } from 'preact';
import { useCallback, useMemo, useState } from 'preact/hooks';
import { eventName, eventSource, type EventDefinition, type PageProps } from '../types.js';
import { RollupPanel } from './eventChart.js';
import { Comparisons } from './eventComparisons.js';
import { Sharing } from './eventSharing.js';
import { fleetHref } from './fleets.js';

export function EventsPage({ events, reloadEvents, route }: PageProps): JSX.Element {
  const [filter, setFilter] = useState('');
  const selectedId = route.parts[1];
  const selected = events.find((e) => e.event_id === selectedId) ?? events[0];
  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return f === '' ? events : events.filter((e) => `${e.title ?? ''} ${e.agent} ${e.event}`.toLowerCase().includes(f));
  }, [events, filter]);
  if (events.length === 0) {
    return (
      <section>
        <h1>Events</h1>
        <p>No events yet. Send logs to POST /v1.0/logs: each new agent and event pair appears here.</p>
      </section>
    );
  }
  return (
    <div class="master-detail">
      <section class="master" aria-labelledby="events-heading">
        <h1 id="events-heading">Events</h1>
        <label for="event-filter">Filter events</label>
        <input id="event-filter" type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
        <p class="muted" aria-live="polite">
          {shown.length} of {events.length}
        </p>
        <ul class="item-list">
          {shown.map((e) => (
            <li key={e.event_id}>
              <a href={`#/events/${e.event_id}`} aria-current={e === selected ? 'true' : undefined}>
                <span class="item-title">{eventName(e)}</span>
                <span class="muted item-sub">
                  {eventSource(e)}
                  {e.public ? ' · shared' : ''}
                </span>
              </a>
            </li>
          ))}
        </ul>
      </section>
      {selected && <EventDetail key={selected.event_id} event={selected} reloadEvents={reloadEvents} />}
    </div>
  );
}

function EventDetail({ event, reloadEvents }: { event: EventDefinition; reloadEvents: () => void }): JSX.Element {
  // The ten comparisons wait for the chart's data: they would otherwise take the browser's
  // connections and the server's time first.
  const [chartLoaded, setChartLoaded] = useState(false);
  const onChartLoaded = useCallback(() => setChartLoaded(true), []);
  return (
    <section class="detail" aria-labelledby="event-heading">
      <h2 id="event-heading">{eventName(event)}</h2>
      <p class="muted">
        {eventSource(event)}
        {event.unit ? ` · unit: ${event.unit}` : ''} · timezone: {event.timezone} · <a href={fleetHref(event.event)}>{event.event} across its agents</a>
      </p>
      {event.description && <p>{event.description}</p>}
      <RollupPanel event={event} onLoaded={onChartLoaded} />
      <Comparisons event={event} start={chartLoaded} />
      <Sharing event={event} reloadEvents={reloadEvents} />
    </section>
  );
}
