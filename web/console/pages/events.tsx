// Events: the list, and for the chosen event its rollup chart, the ten window comparisons
// side by side, and its share link.
import type { JSX } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { measureLabel, RollupChart } from '../../shared/rollupChart.js';
import { formatBucket, formatNumber, MEASURES, measureOf, PERIOD_SECONDS, PERIODS, type Measure, type Period } from '../../shared/rollups.js';
import { api, errorText } from '../api.js';
import { useInterval, useLoad } from '../hooks.js';
import { eventName, eventSource, type EventDefinition, type PageProps, type RollupItem, type WindowComparison } from '../types.js';

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
        {event.unit ? ` · unit: ${event.unit}` : ''} · timezone: {event.timezone}
      </p>
      {event.description && <p>{event.description}</p>}
      <RollupPanel event={event} onLoaded={onChartLoaded} />
      <Comparisons event={event} start={chartLoaded} />
      <Sharing event={event} reloadEvents={reloadEvents} />
    </section>
  );
}

/** How many of the newest buckets the chart shows: 4 hours of minutes, a week of hours, 90 days. */
const CHART_ITEMS: Record<Period, number> = { minute: 240, hour: 168, day: 90 };
const PERIOD_LABELS: Record<Period, string> = { minute: 'Minutes', hour: 'Hours', day: 'Days' };

const readRollups = (eventId: string, period: Period) => api<RollupItem[]>('GET', `/v1.0/events/${eventId}/logs?period=${period}&limit=${CHART_ITEMS[period]}`);

let prefetched: { eventId: string; items: Promise<RollupItem[]> } | null = null;

/**
 * Starts reading the minute rollups of the event the console will show first, as soon as it
 * is known (before the list and the page are rendered); the chart then takes that read.
 */
export function prefetchRollups(eventId: string): void {
  const items = readRollups(eventId, 'minute');
  items.catch(() => {}); // the chart's own read reports errors
  prefetched = { eventId, items };
}

function takePrefetched(eventId: string, period: Period): Promise<RollupItem[]> | null {
  const p = prefetched;
  prefetched = null;
  return p && p.eventId === eventId && period === 'minute' ? p.items : null;
}

function RollupPanel({ event, onLoaded }: { event: EventDefinition; onLoaded: () => void }): JSX.Element {
  const [period, setPeriod] = useState<Period>('minute');
  const [measure, setMeasure] = useState<Measure>('average');
  const items = useLoad(() => takePrefetched(event.event_id, period) ?? readRollups(event.event_id, period), [event.event_id, period]);
  useEffect(() => {
    if (items.value || items.error) onLoaded();
  }, [items.value, items.error, onLoaded]);
  useInterval(items.reload, 30_000);
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<RollupChart | null>(null);
  useEffect(() => {
    chart.current = new RollupChart(container.current!);
    return () => chart.current?.destroy();
  }, []);
  useEffect(() => {
    if (items.value)
      chart.current?.show({
        items: items.value,
        period,
        measure,
        unit: event.unit,
        timezone: event.timezone,
        span: CHART_ITEMS[period] * PERIOD_SECONDS[period],
      });
  }, [items.value, measure, event.unit, event.timezone, period]);
  const sorted = [...(items.value ?? [])].reverse();
  return (
    <section class="panel" aria-labelledby="rollup-heading">
      <h3 id="rollup-heading">Rollups</h3>
      <div class="chart-controls">
        <fieldset class="button-row plain">
          <legend class="visually-hidden">Bucket size</legend>
          {PERIODS.map((p) => (
            <button key={p} type="button" aria-pressed={p === period} onClick={() => setPeriod(p)}>
              {PERIOD_LABELS[p]}
            </button>
          ))}
        </fieldset>
        <div>
          <label for="measure">Measure </label>
          <select id="measure" value={measure} onChange={(e) => setMeasure(e.currentTarget.value as Measure)}>
            {MEASURES.map((m) => (
              <option key={m} value={m}>
                {measureLabel(m)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div class="chart" ref={container} aria-hidden="true" data-buckets={items.value?.length} />
      {items.error ? <p role="alert">{errorText(items.error)}</p> : null}
      {items.value && items.value.length === 0 && <p>No logs in this period yet.</p>}
      {items.value && items.value.length > 0 && (
        <details>
          <summary>
            The {items.value.length} newest {period} buckets as a table
          </summary>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Bucket ({event.timezone})</th>
                  <th scope="col" class="number">
                    Count
                  </th>
                  <th scope="col" class="number">
                    {measureLabel(measure)}
                  </th>
                </tr>
              </thead>
              <tbody>
                {sorted.slice(-60).map((item) => (
                  <tr key={item.occurred_at}>
                    <td>{formatBucket(item.occurred_at, period, event.timezone)}</td>
                    <td class="number">{formatNumber(item.count)}</td>
                    <td class="number">{formatNumber(measureOf(item, measure))}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      )}
    </section>
  );
}

/** The ten comparisons the analytics route supports. */
const COMPARISONS: readonly [string, string, string][] = [
  ['1h', 'previous_window', 'This hour vs the previous hour'],
  ['1h', 'previous_1d', 'This hour vs the same hour yesterday'],
  ['1h', 'previous_7d', 'This hour vs the same hour 7 days ago'],
  ['1h', 'previous_1m', 'This hour vs the same hour 30 days ago'],
  ['1d', 'previous_window', 'Today vs yesterday'],
  ['1d', 'previous_7d', 'Today vs the same day last week'],
  ['1d', 'previous_1m', 'Today vs the same day last month'],
  ['7d', 'previous_window', 'This week vs last week'],
  ['7d', 'previous_1m', 'This week vs the same week last month'],
  ['1m', 'previous_window', 'This month vs last month'],
];

const ROWS = [
  ['Sum', 'current_value', 'previous_value', 'value_pct_change'],
  ['Count', 'current_count', 'previous_count', 'count_pct_change'],
  ['Mean', 'current_mean', 'previous_mean', 'mean_pct_change'],
] as const;

function percent(n: number | null | undefined): string {
  if (n === null || n === undefined) return '–';
  return `${n > 0 ? '+' : ''}${formatNumber(n)} %`;
}

function Comparisons({ event, start }: { event: EventDefinition; start: boolean }): JSX.Element {
  const results = useLoad(
    () =>
      start
        ? Promise.all(
            COMPARISONS.map(([period, previous]) =>
              api<WindowComparison>('GET', `/v1.0/events/${event.event_id}/analytics?view=window&period=${period}&previous=${previous}`),
            ),
          )
        : new Promise<never>(() => {}),
    [event.event_id, start],
  );
  return (
    <section class="panel" aria-labelledby="comparisons-heading">
      <div class="panel-head">
        <h3 id="comparisons-heading">Window comparisons</h3>
        <button type="button" onClick={results.reload}>
          Refresh
        </button>
      </div>
      {results.error ? <p role="alert">{errorText(results.error)}</p> : null}
      <div class="comparison-grid">
        {COMPARISONS.map(([period, previous, label], i) => {
          const c = results.value?.[i];
          return (
            <article class="comparison" key={`${period}-${previous}`} aria-label={label}>
              <h4>{label}</h4>
              {!c ? (
                <p class="muted">{results.loading ? 'Loading…' : '–'}</p>
              ) : c.data === null ? (
                <p class="muted">No logs in either window.</p>
              ) : (
                <table>
                  <thead>
                    <tr>
                      <th scope="col">
                        <span class="visually-hidden">Measure</span>
                      </th>
                      <th scope="col" class="number">
                        Now
                      </th>
                      <th scope="col" class="number">
                        Before
                      </th>
                      <th scope="col" class="number">
                        Change
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {ROWS.map(([name, now, before, change]) => (
                      <tr key={name}>
                        <th scope="row">{name}</th>
                        <td class="number">{formatNumber(c.data![now])}</td>
                        <td class="number">{formatNumber(c.data![before])}</td>
                        <td class="number">{percent(c.data![change])}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </article>
          );
        })}
      </div>
    </section>
  );
}

function Sharing({ event, reloadEvents }: { event: EventDefinition; reloadEvents: () => void }): JSX.Element {
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const link = `${location.origin}/share/events/${event.event_id}?token=${encodeURIComponent(event.share_token)}`;
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
