// A chart of several series of one event name (the top agents, or each value of a dimension),
// one line each in its own colour, drawn with uPlot with the rollup chart's options and size
// (rollupChart.ts): times in the given zone, the x axis and sparse points of chartOptions.ts,
// the width of its container. The legend names each line by its group, as the table beside it
// does.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { sparseSeries, type TimeRange } from '../shared/chartOptions.js';
import { chartSize, legendValue, timeChartOptions } from '../shared/rollupChart.js';
import { type Measure, measureOf, type RollupItem } from '../shared/rollups.js';
import { validZone } from '../shared/time.js';

/** Ten colours told apart also by people with the commonest colour blindness (Tableau 10). */
export const SERIES_COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

export interface SeriesLine {
  readonly name: string;
  readonly buckets: readonly RollupItem[];
}

export interface SeriesChartSpec {
  readonly lines: readonly SeriesLine[];
  readonly measure: Measure;
  readonly measureLabel: string;
  readonly timezone: string;
  readonly range: TimeRange;
}

/** uPlot's aligned columns: every bucket start of any line, and each line's measure there (null where it has none). */
function alignedData(lines: readonly SeriesLine[], measure: Measure): uPlot.AlignedData {
  const xs = [...new Set(lines.flatMap((l) => l.buckets.map((b) => Date.parse(b.occurred_at) / 1000)))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const columns = lines.map((line) => {
    const ys: (number | null)[] = xs.map(() => null);
    for (const b of line.buckets) ys[index.get(Date.parse(b.occurred_at) / 1000)!] = measureOf(b, measure);
    return ys;
  });
  return [xs, ...columns] as uPlot.AlignedData;
}

export class SeriesChart {
  private plot: uPlot | null = null;
  private readonly resize = new ResizeObserver(() => this.plot?.setSize(this.size()));

  constructor(private readonly container: HTMLElement) {
    this.resize.observe(container);
  }

  private size() {
    return chartSize(this.container, 200);
  }

  show(spec: SeriesChartSpec): void {
    this.plot?.destroy();
    const timezone = validZone(spec.timezone);
    const lines = spec.lines.map((line, i) => {
      const color = SERIES_COLORS[i % SERIES_COLORS.length]!;
      return { label: line.name, stroke: color, width: 2, ...sparseSeries(color), value: legendValue };
    });
    this.plot = new uPlot({ ...timeChartOptions(this.size(), timezone, lines), legend: { live: true } }, alignedData(spec.lines, spec.measure), this.container);
    this.plot.setScale('x', { min: spec.range[0], max: spec.range[1] });
  }

  destroy(): void {
    this.resize.disconnect();
    this.plot?.destroy();
    this.plot = null;
  }
}
