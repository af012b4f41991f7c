// A time-series chart of an event's rollup items, drawn with uPlot (a small, fast canvas
// chart library made for time series) and shared by the console and the share page. Times
// are shown in the event's timezone; the chart follows its container's width.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { chartColumns, type Measure, type Period, type RollupItem } from './rollups.js';

export interface ChartSpec {
  readonly items: readonly RollupItem[];
  readonly period: Period;
  /** The time the chart shows at least, in seconds: sparse data is drawn in a window this wide, not stretched. */
  readonly span: number;
  readonly measure: Measure;
  readonly unit: string;
  readonly timezone: string;
}

const MEASURE_LABELS: Record<Measure, string> = { average: 'Average', sum: 'Sum', count: 'Count', min: 'Minimum', max: 'Maximum' };
export const measureLabel = (m: Measure) => MEASURE_LABELS[m];

/** Marked once per page when the first chart has drawn: what the browser tests time. */
const FIRST_CHART_MARK = 'alertmon:first-chart';

function markFirstDraw(): void {
  if (performance.getEntriesByName(FIRST_CHART_MARK).length === 0) performance.mark(FIRST_CHART_MARK);
}

function validTimezone(timezone: string): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
    return timezone;
  } catch {
    return 'UTC';
  }
}

/**
 * The time axis: ends now, or at the newest bucket when that is older than the span; starts
 * a span before its end, or earlier when the data does.
 */
function timeRange(min: number | null, max: number | null, span: number): [number, number] {
  const now = Date.now() / 1000;
  if (min === null || max === null) return [now - span, now];
  const end = Math.max(max, Math.min(now, max + span));
  return [Math.min(min, end - span), end];
}

export class RollupChart {
  private plot: uPlot | null = null;
  private spec: ChartSpec | null = null;
  private readonly resize = new ResizeObserver(() => this.plot?.setSize(this.size()));

  constructor(private readonly container: HTMLElement) {
    this.resize.observe(container);
  }

  private size() {
    const width = Math.max(240, this.container.clientWidth);
    return { width, height: Math.round(Math.min(320, Math.max(180, width * 0.45))) };
  }

  /** Draws the items; a change of anything but the items rebuilds the chart. */
  show(spec: ChartSpec): void {
    const data = chartColumns(spec.items, spec.period, spec.measure) as uPlot.AlignedData;
    const same =
      this.spec &&
      this.spec.period === spec.period &&
      this.spec.measure === spec.measure &&
      this.spec.unit === spec.unit &&
      this.spec.timezone === spec.timezone;
    this.spec = spec;
    if (this.plot && same) {
      this.plot.setData(data);
      this.setTimeRange(data[0] as number[]);
      return;
    }
    this.plot?.destroy();
    const timezone = validTimezone(spec.timezone);
    const label = `${measureLabel(spec.measure)}${spec.unit && spec.measure !== 'count' ? ` (${spec.unit})` : ''}`;
    this.plot = new uPlot(
      {
        ...this.size(),
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), timezone),
        scales: { x: { time: true } },
        series: [
          { label: `Time (${timezone})` },
          { label, stroke: '#0b57d0', fill: 'rgba(11, 87, 208, 0.08)', width: 2, spanGaps: false, points: { size: 6 } },
        ],
        axes: [
          { stroke: '#3c4043', grid: { stroke: '#e8eaed' } },
          { stroke: '#3c4043', grid: { stroke: '#e8eaed' }, size: 64 },
        ],
        cursor: { drag: { x: false, y: false } },
        hooks: { draw: [markFirstDraw] },
      },
      data,
      this.container,
    );
    this.setTimeRange(data[0] as number[]);
  }

  /** uPlot fits the time axis to the data (and to 1000 days around a single point): show the span instead. */
  private setTimeRange(xs: readonly number[]): void {
    const [min, max] = timeRange(xs[0] ?? null, xs[xs.length - 1] ?? null, this.spec!.span);
    this.plot?.setScale('x', { min, max });
  }

  destroy(): void {
    this.resize.disconnect();
    this.plot?.destroy();
    this.plot = null;
  }
}
