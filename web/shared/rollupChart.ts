// A time-series chart of an event's rollup items, drawn with uPlot (a small, fast canvas
// chart library made for time series) and shared by the console and the share page. Times
// are shown in the event's timezone; the chart follows its container's width. The series,
// its points on sparse data and the time range follow chartOptions.ts.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { describeTimeRange, fitTimeRange, sparseSeries, TIME_AXIS_VALUES, type TimeRange } from './chartOptions.js';
import { chartColumns, formatNumber, type Measure, PERIOD_SECONDS, type Period, type RollupItem } from './rollups.js';
import { formatTime, validZone } from './time.js';

export interface ChartSpec {
  readonly items: readonly RollupItem[];
  readonly period: Period;
  readonly measure: Measure;
  readonly unit: string;
  readonly timezone: string;
  /** The time axis, from rollupRange. */
  readonly range: TimeRange;
}

const MEASURE_LABELS: Record<Measure, string> = { average: 'Average', sum: 'Sum', count: 'Count', min: 'Minimum', max: 'Maximum' };
export const measureLabel = (m: Measure) => MEASURE_LABELS[m];

/** The narrowest range of each bucket size: an hour of minutes, a day of hours, a week of days. */
const MIN_SPAN: Record<Period, number> = { minute: 3600, hour: 86_400, day: 7 * 86_400 };

/** The time axis that fits the items (from the oldest to now, at least MIN_SPAN wide). */
export function rollupRange(items: readonly RollupItem[], period: Period, nowMs = Date.now()): TimeRange {
  const xs = items.map((i) => Date.parse(i.occurred_at) / 1000).sort((a, b) => a - b);
  return fitTimeRange(xs, { step: PERIOD_SECONDS[period], minSpan: MIN_SPAN[period] }, nowMs / 1000);
}

/** The chart's caption: the range shown, in the event's timezone. */
export const rollupRangeText = (range: TimeRange, period: Period, timezone: string) => describeTimeRange(range, timezone, period !== 'day');

/** The size of a chart in its container: the container's width (240 px at least) and a height of about half of it, between `minHeight` and 320 px. */
export function chartSize(container: HTMLElement, minHeight: number): { width: number; height: number } {
  const width = Math.max(240, container.clientWidth);
  return { width, height: Math.round(Math.min(320, Math.max(minHeight, width * 0.45))) };
}

/** A line's figure in the legend: in words, "–" where the line has no value. */
export const legendValue = (_: uPlot, v: number | null) => (v === null || v === undefined ? '–' : formatNumber(v));

/**
 * The options of every time chart (this one, the console's chart of several series): `lines`
 * over time in `timezone`, which the legend's time column names; the x axis in 24-hour time,
 * figures in words on the y axis, no zoom by dragging.
 */
export function timeChartOptions(size: { width: number; height: number }, timezone: string, lines: readonly uPlot.Series[]): uPlot.Options {
  return {
    ...size,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), timezone),
    scales: { x: { time: true } },
    series: [
      { label: `Time (${timezone})`, value: (_, v) => (v === null || v === undefined ? '–' : formatTime(v * 1000, timezone, { withoutZone: true })) },
      ...lines,
    ],
    axes: [
      { stroke: '#3c4043', grid: { stroke: '#e8eaed' }, values: TIME_AXIS_VALUES },
      { stroke: '#3c4043', grid: { stroke: '#e8eaed' }, size: 64, values: (_, splits) => splits.map((v) => formatNumber(v)) },
    ],
    cursor: { drag: { x: false, y: false } },
  };
}

const SERIES_COLOR = '#0b57d0';

/** Marked once per page when the first chart has drawn: what the browser tests time. */
const FIRST_CHART_MARK = 'alertmon:first-chart';

function markFirstDraw(): void {
  if (performance.getEntriesByName(FIRST_CHART_MARK).length === 0) performance.mark(FIRST_CHART_MARK);
}

export class RollupChart {
  private plot: uPlot | null = null;
  private spec: ChartSpec | null = null;
  private readonly resize = new ResizeObserver(() => this.plot?.setSize(this.size()));

  constructor(private readonly container: HTMLElement) {
    this.resize.observe(container);
  }

  private size() {
    return chartSize(this.container, 180);
  }

  /** Draws the items; a change of anything but the items and the range rebuilds the chart. */
  show(spec: ChartSpec): void {
    const data = chartColumns(spec.items, spec.period, spec.measure) as uPlot.AlignedData;
    const same =
      this.spec &&
      this.spec.period === spec.period &&
      this.spec.measure === spec.measure &&
      this.spec.unit === spec.unit &&
      this.spec.timezone === spec.timezone;
    this.spec = spec;
    // The range the data attributes state (the browser tests read them), in seconds.
    this.container.dataset.rangeFrom = String(spec.range[0]);
    this.container.dataset.rangeTo = String(spec.range[1]);
    if (this.plot && same) {
      this.plot.setData(data);
      this.setTimeRange();
      return;
    }
    this.plot?.destroy();
    const timezone = validZone(spec.timezone);
    const label = `${measureLabel(spec.measure)}${spec.unit && spec.measure !== 'count' ? ` (${spec.unit})` : ''}`;
    this.plot = new uPlot(
      {
        ...timeChartOptions(this.size(), timezone, [
          { label, stroke: SERIES_COLOR, fill: 'rgba(11, 87, 208, 0.08)', width: 2, ...sparseSeries(SERIES_COLOR), value: legendValue },
        ]),
        hooks: { draw: [markFirstDraw] },
      },
      data,
      this.container,
    );
    this.setTimeRange();
  }

  /** uPlot fits the time axis to the data (and to 1000 days around a single point): show the range instead. */
  private setTimeRange(): void {
    const [min, max] = this.spec!.range;
    this.plot?.setScale('x', { min, max });
  }

  destroy(): void {
    this.resize.disconnect();
    this.plot?.destroy();
    this.plot = null;
  }
}
