// What every time-series chart of the console and the share page draws with (uPlot): points
// where a line cannot show a value (a bucket with empty buckets on both sides), a time axis
// in 24-hour time, and a time range that fits the data, with its caption. No DOM here:
// test/unit/web/ tests it. A new chart takes `sparsePoints` for its series, `TIME_AXIS_VALUES`
// for its x axis, and `fitTimeRange` + `describeTimeRange` for its range and caption.
import type uPlot from 'uplot';
import { formatDuration, formatSpan } from './time.js';

type Values = readonly (number | null | undefined)[];

/** The indices of values with no value on either side: a line has no segment to show them by. */
export function isolatedIndices(ys: Values): number[] {
  const isolated: number[] = [];
  const has = (i: number) => ys[i] !== null && ys[i] !== undefined;
  for (let i = 0; i < ys.length; i++) if (has(i) && !has(i - 1) && !has(i + 1)) isolated.push(i);
  return isolated;
}

/**
 * The options that make a series show sparse data: its points where they fit (uPlot's own
 * rule: no denser than one per `2 × size` pixels), and else at least each isolated value,
 * filled so that one bucket alone still shows. uPlot draws no line through a value with gaps
 * on both sides, and by its density rule no point either: data that arrives every few
 * minutes drew nothing. Spread it into a series: `{ label, stroke, ...sparseSeries(stroke) }`.
 */
export function sparseSeries(color: string, size = 6): Pick<uPlot.Series, 'spanGaps' | 'points' | 'gaps'> {
  return {
    spanGaps: false,
    points: {
      size,
      fill: color,
      stroke: color,
      filter: (u, seriesIdx, show) => (show ? null : isolatedIndices(u.data[seriesIdx] as Values)),
    },
    gaps: closeIsolatedEnds,
  };
}

/**
 * uPlot clips a line at its gaps only, and a gap ends half a stroke inside each value: an
 * isolated first or last value, with no gap beyond it, showed the end of the steep segment
 * that leads to it as a stray vertical line. Its outer side is clipped too.
 */
function closeIsolatedEnds(u: uPlot, seriesIdx: number, idx0: number, idx1: number, gaps: uPlot.Series.Gaps): uPlot.Series.Gaps {
  const ys = u.data[seriesIdx] as Values;
  const has = (i: number) => ys[i] !== null && ys[i] !== undefined;
  const left = u.bbox.left - 10;
  const right = u.bbox.left + u.bbox.width + 10;
  if (idx0 === idx1) return [[left, right]];
  const closed = [...gaps];
  const [first, last] = [closed[0], closed[closed.length - 1]];
  if (first && !has(idx0 + 1)) closed.unshift([left, first[0]]);
  if (last && !has(idx1 - 1)) closed.push([last[1], right]);
  return closed;
}

const _ = null;
/** The x axis' labels in 24-hour time ("21:05", "Dec 1"), the date under the first of each day. */
export const TIME_AXIS_VALUES: (string | number | null)[][] = [
  // tick at least, label, label at a new year, month, day, hour, minute, second, 1: label + rollover
  [365 * 86_400, '{YYYY}', _, _, _, _, _, _, 1],
  [28 * 86_400, '{MMM}', '\n{YYYY}', _, _, _, _, _, 1],
  [86_400, '{MMM} {D}', '\n{YYYY}', _, _, _, _, _, 1],
  [3600, '{HH}:{mm}', '\n{MMM} {D}, {YYYY}', _, '\n{MMM} {D}', _, _, _, 1],
  [60, '{HH}:{mm}', '\n{MMM} {D}, {YYYY}', _, '\n{MMM} {D}', _, _, _, 1],
  [1, '{HH}:{mm}:{ss}', '\n{MMM} {D}, {YYYY}', _, '\n{MMM} {D}', _, _, _, 1],
];

/** A chart's time axis in seconds: [from, to]. */
export type TimeRange = readonly [number, number];

export interface RangeRule {
  /** The length of one bucket in seconds. */
  readonly step: number;
  /** The range is never narrower than this (seconds): three buckets are not stretched across the chart. */
  readonly minSpan: number;
}

/**
 * The time axis for buckets starting at `xs` (seconds, oldest first): from the oldest bucket
 * to now, at least `minSpan` wide. When the data stopped longer ago than it spans, the axis
 * ends a bucket after the newest instead (the caption says when), rather than squeezing the
 * data against the left edge.
 */
export function fitTimeRange(xs: readonly number[], rule: RangeRule, now: number): TimeRange {
  const first = xs[0];
  const last = xs[xs.length - 1];
  if (first === undefined || last === undefined) return [now - rule.minSpan, now];
  const silentFor = now - last;
  const end = silentFor <= Math.max(rule.minSpan, last - first) ? Math.max(now, last + rule.step / 2) : last + rule.step;
  return [Math.min(first, end - rule.minSpan), end];
}

/** "Shown: Nov 22 – Dec 1, 2026 (Europe/Berlin), 10 days." */
export function describeTimeRange([from, to]: TimeRange, zone: string, withTimes: boolean): string {
  return `Shown: ${formatSpan(from * 1000, to * 1000, zone, withTimes)}, ${formatDuration(to - from)}.`;
}
