import { expect } from 'chai';
import { chartColumns, formatNumber, type RollupItem } from '../../../web/shared/rollups.js';

const item = (iso: string, count: number, value: number): RollupItem => ({
  occurred_at: iso,
  count,
  value,
  squares: 0,
  min: value / count,
  max: value / count,
});

describe('chart columns of rollup items', () => {
  it('orders buckets oldest first and breaks the line where buckets are missing', () => {
    const items = [item('2026-11-21T14:05:00.000Z', 2, 10), item('2026-11-21T14:01:00.000Z', 1, 3), item('2026-11-21T14:02:00.000Z', 4, 8)];
    const [xs, ys] = chartColumns(items, 'minute', 'average');
    const at = (iso: string) => Date.parse(iso) / 1000;
    expect(xs).to.deep.equal([at('2026-11-21T14:01:00Z'), at('2026-11-21T14:02:00Z'), at('2026-11-21T14:03:00Z'), at('2026-11-21T14:05:00Z')]);
    expect(ys).to.deep.equal([3, 2, null, 5]);
    expect(chartColumns(items, 'minute', 'count')[1]).to.deep.equal([1, 4, null, 2]);
  });

  it('takes a 23- or 25-hour local day as one step, and a missing day as a gap', () => {
    // Europe/Berlin around the end of DST: local midnights 23:00Z, then 23:00Z (25 h later), then 2 days later.
    const items = [item('2026-10-24T22:00:00.000Z', 1, 1), item('2026-10-25T23:00:00.000Z', 1, 2), item('2026-10-27T23:00:00.000Z', 1, 3)];
    const [, ys] = chartColumns(items, 'day', 'sum');
    expect(ys).to.deep.equal([1, 2, null, 3]);
  });

  it('formats numbers for people', () => {
    expect([formatNumber(100303.848), formatNumber(136.309), formatNumber(0.012345), formatNumber(0), formatNumber(null)]).to.deep.equal([
      '100,304',
      '136.31',
      '0.0123',
      '0',
      '–',
    ]);
  });
});
