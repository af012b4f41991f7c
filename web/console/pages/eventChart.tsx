// The chart of an event's rollups (minute, hour or day buckets, a measure of each) over a
// range that fits the data, which its caption states, also as a table, refreshed every 30 seconds.
import type { JSX } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { measureLabel, RollupChart, rollupRange, rollupRangeText } from '../../shared/rollupChart.js';
import { formatNumber, MEASURES, measureOf, PERIODS, type Measure, type Period } from '../../shared/rollups.js';
import { formatBucketStart } from '../../shared/time.js';
import { api, errorText } from '../api.js';
import { Choice, Table } from '../components.js';
import { useInterval, useLoad } from '../hooks.js';
import type { EventDefinition, RollupItem } from '../types.js';

/** How many of the newest buckets the chart reads at most: 4 hours of minutes, a week of hours, 90 days. */
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

export function RollupPanel({ event, onLoaded }: { event: EventDefinition; onLoaded: () => void }): JSX.Element {
  const [period, setPeriod] = useState<Period>('minute');
  const [measure, setMeasure] = useState<Measure>('average');
  const items = useLoad(() => takePrefetched(event.event_id, period) ?? readRollups(event.event_id, period), [event.event_id, period]);
  useEffect(() => {
    if (items.value || items.error) onLoaded();
  }, [items.value, items.error, onLoaded]);
  useInterval(items.reload, 30_000);
  // The range is fixed with the data it fits (a refresh brings both), not at every render.
  const range = useMemo(() => (items.value ? rollupRange(items.value, period) : null), [items.value, period]);
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<RollupChart | null>(null);
  // Layout effects: the chart is drawn with the render that brings its data, not a frame later.
  useLayoutEffect(() => {
    chart.current = new RollupChart(container.current!);
    return () => chart.current?.destroy();
  }, []);
  useLayoutEffect(() => {
    if (items.value && range) chart.current?.show({ items: items.value, period, measure, unit: event.unit, timezone: event.timezone, range });
  }, [items.value, range, measure, event.unit, event.timezone, period]);
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
        <Choice id="measure" label="Measure" value={measure} choices={MEASURES.map((m) => [m, measureLabel(m)] as const)} onChange={setMeasure} />
      </div>
      <div class="chart" ref={container} aria-hidden="true" data-buckets={items.value?.length} />
      {range && items.value && items.value.length > 0 && <p class="muted chart-range">{rollupRangeText(range, period, event.timezone)}</p>}
      {items.error ? <p role="alert">{errorText(items.error)}</p> : null}
      {items.value && items.value.length === 0 && <p>No logs in this period yet.</p>}
      {items.value && items.value.length > 0 && (
        <details>
          <summary>
            The {items.value.length} newest {period} buckets as a table
          </summary>
          <Table columns={[`Bucket (${event.timezone})`, { label: 'Count', numeric: true }, { label: measureLabel(measure), numeric: true }]}>
            {sorted.slice(-60).map((item) => (
              <tr key={item.occurred_at}>
                <td>{formatBucketStart(item.occurred_at, period, event.timezone, { withoutZone: true })}</td>
                <td class="number">{formatNumber(item.count)}</td>
                <td class="number">{formatNumber(measureOf(item, measure))}</td>
              </tr>
            ))}
          </Table>
        </details>
      )}
    </section>
  );
}
