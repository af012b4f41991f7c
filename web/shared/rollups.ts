// A rollup item as the API shows it, and the measures a chart can draw from it.

export type Period = 'minute' | 'hour' | 'day';
export const PERIODS: readonly Period[] = ['minute', 'hour', 'day'];

export interface RollupItem {
  readonly occurred_at: string;
  readonly count: number;
  readonly value: number;
  readonly squares: number;
  readonly min: number;
  readonly max: number;
}

export type Measure = 'average' | 'sum' | 'count' | 'min' | 'max';
export const MEASURES: readonly Measure[] = ['average', 'sum', 'count', 'min', 'max'];

export function measureOf(item: RollupItem, measure: Measure): number {
  switch (measure) {
    case 'average':
      return item.value / item.count;
    case 'sum':
      return item.value;
    case 'count':
      return item.count;
    case 'min':
      return item.min;
    case 'max':
      return item.max;
  }
}

/** The length of a bucket in seconds (a local day may last 23 or 25 hours). */
export const PERIOD_SECONDS: Record<Period, number> = { minute: 60, hour: 3600, day: 86_400 };

/**
 * The chart's columns: bucket starts in seconds, oldest first, and the measure of each. A
 * bucket with no logs has no item; where one is missing a null is put in, so the line breaks
 * there instead of drawing a slope through time that had no data. (Days may last 23 or 25
 * hours in the event's timezone, hence the tolerance.)
 */
export function chartColumns(items: readonly RollupItem[], period: Period, measure: Measure): [number[], (number | null)[]] {
  const sorted = [...items].sort((a, b) => Date.parse(a.occurred_at) - Date.parse(b.occurred_at));
  const xs: number[] = [];
  const ys: (number | null)[] = [];
  const step = PERIOD_SECONDS[period];
  const longestStep = period === 'day' ? 25 * 3600 : step;
  for (const item of sorted) {
    const x = Date.parse(item.occurred_at) / 1000;
    const previous = xs[xs.length - 1];
    if (previous !== undefined && x - previous > longestStep * 1.5) {
      xs.push(previous + step);
      ys.push(null);
    }
    xs.push(x);
    ys.push(measureOf(item, measure));
  }
  return [xs, ys];
}

/** The newest item, for a one-line summary beside a chart. */
export function newestItem(items: readonly RollupItem[]): RollupItem | null {
  let newest: RollupItem | null = null;
  for (const item of items) if (newest === null || item.occurred_at > newest.occurred_at) newest = item;
  return newest;
}

const large = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const medium = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });
const small = new Intl.NumberFormat('en', { maximumSignificantDigits: 3 });

/** A number for people: whole above 1,000, two decimals above 1, three significant digits below. */
export function formatNumber(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  const abs = Math.abs(n);
  return (abs >= 1000 ? large : abs >= 1 || abs === 0 ? medium : small).format(n);
}
