// The share page's script: draws the chart of the data embedded in the page, lets the reader
// switch between minute, hour and day buckets and between measures, and refreshes the data
// every 10 seconds from the public read while the page is visible.
import './share.css';
import { measureLabel, RollupChart, rollupRange, rollupRangeText } from '../shared/rollupChart.js';
import { formatNumber, MEASURES, measureOf, newestItem, PERIODS, type Measure, type Period, type RollupItem } from '../shared/rollups.js';
import { browserZone, formatBucketStart, formatTime } from '../shared/time.js';

interface SharedEvent {
  readonly event: { event_id: string; agent: string; event: string; title: string | null; description: string; unit: string; timezone: string };
  readonly minute: RollupItem[];
  readonly hour: RollupItem[];
  readonly day: RollupItem[];
}

const REFRESH_MS = 10_000;
const PERIOD_LABELS: Record<Period, string> = { minute: 'Minutes', hour: 'Hours', day: 'Days' };

function element<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  if (text !== undefined) el.textContent = text;
  return el;
}

function start(root: HTMLElement, initial: SharedEvent): void {
  let shared = initial;
  let period: Period = 'minute';
  let measure: Measure = 'average';
  let stopped = false;

  const periodButtons = PERIODS.map((p) => element('button', { type: 'button', 'aria-pressed': String(p === period) }, PERIOD_LABELS[p]));
  const periodGroup = element('fieldset', { class: 'button-row plain' });
  periodGroup.append(element('legend', { class: 'visually-hidden' }, 'Bucket size'), ...periodButtons);
  const measureSelect = element('select', { id: 'measure' });
  for (const m of MEASURES) measureSelect.append(element('option', { value: m }, measureLabel(m)));
  const measureLabelEl = element('label', { for: 'measure' }, 'Measure ');
  const measureField = element('div');
  measureField.append(measureLabelEl, measureSelect);
  const controls = element('div', { class: 'chart-controls' });
  controls.append(periodGroup, measureField);
  const chartEl = element('div', { class: 'chart', 'aria-hidden': 'true' });
  const rangeEl = element('p', { class: 'muted chart-range' });
  const summary = element('p', { class: 'summary', 'aria-live': 'polite' });
  const updated = element('p', { class: 'muted' });
  root.replaceChildren(controls, chartEl, rangeEl, summary, updated);

  const chart = new RollupChart(chartEl);
  const render = () => {
    const items = shared[period];
    const { unit, timezone } = shared.event;
    const range = rollupRange(items, period);
    chart.show({ items, period, measure, unit, timezone, range });
    rangeEl.textContent = rollupRangeText(range, period, timezone);
    const newest = newestItem(items);
    summary.textContent =
      newest === null
        ? `No logs in the recent ${period} buckets.`
        : `Latest ${period}, ${formatBucketStart(newest.occurred_at, period, timezone)}: ${measureLabel(measure).toLowerCase()} ` +
          `${formatNumber(measureOf(newest, measure))}${unit && measure !== 'count' ? ` ${unit}` : ''} over ${formatNumber(newest.count)} log${newest.count === 1 ? '' : 's'}.`;
    updated.textContent = `Updated ${formatTime(Date.now(), browserZone(), { seconds: true })}.`;
  };

  for (const [i, button] of periodButtons.entries()) {
    button.addEventListener('click', () => {
      period = PERIODS[i]!;
      for (const [j, b] of periodButtons.entries()) b.setAttribute('aria-pressed', String(i === j));
      render();
    });
  }
  measureSelect.addEventListener('change', () => {
    measure = measureSelect.value as Measure;
    render();
  });

  const token = new URLSearchParams(location.search).get('token') ?? '';
  const refresh = async () => {
    if (stopped || document.hidden) return;
    try {
      const res = await fetch(`/v1.0/public/events/${encodeURIComponent(shared.event.event_id)}?token=${encodeURIComponent(token)}`);
      if (res.status === 404) {
        stopped = true;
        chart.destroy();
        root.replaceChildren(
          element('p', { role: 'alert' }, 'This share link no longer works: it was replaced by a new link, or the event is no longer shared.'),
        );
        return;
      }
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      shared = (await res.json()) as SharedEvent;
      render();
    } catch {
      updated.textContent = 'Could not refresh; trying again shortly.';
    }
  };
  render();
  setInterval(() => void refresh(), REFRESH_MS);
  document.addEventListener('visibilitychange', () => void refresh());
}

const root = document.getElementById('chart-root');
const data = document.getElementById('share-data');
if (root && data?.textContent) start(root, JSON.parse(data.textContent) as SharedEvent);
