import { expect } from 'chai';
import { describeTimeRange, fitTimeRange, isolatedIndices } from '../../../web/shared/chartOptions.js';

describe('chart options for sparse data', () => {
  it('finds the values a line cannot show: those with no value on either side', () => {
    expect(isolatedIndices([5, null, 6, 7, null, 8, null, null, 9])).to.deep.equal([0, 5, 8]);
    expect(isolatedIndices([1, 2, 3])).to.deep.equal([]);
    expect(isolatedIndices([4])).to.deep.equal([0]);
    expect(isolatedIndices([])).to.deep.equal([]);
  });

  const DAY = 86_400;
  const days = { step: DAY, minSpan: 7 * DAY };
  const now = 100 * DAY + 3600;

  it('fits the time axis to the data, from its oldest bucket to now or half the newest bucket', () => {
    // Nine days of day buckets: nine days and a half (today's point whole), not the 90 days read.
    const nine = Array.from({ length: 10 }, (_, i) => (91 + i) * DAY);
    expect(fitTimeRange(nine, days, now)).to.deep.equal([91 * DAY, 100.5 * DAY]);
    expect(fitTimeRange(nine, days, now + 20 * 3600)).to.deep.equal([91 * DAY, now + 20 * 3600]);
    // Three days: a week at least.
    expect(fitTimeRange([98 * DAY, 99 * DAY, 100 * DAY], days, now)).to.deep.equal([93.5 * DAY, 100.5 * DAY]);
    // Nothing: the narrowest range, ending now.
    expect(fitTimeRange([], days, now)).to.deep.equal([now - 7 * DAY, now]);
  });

  it('ends after the newest bucket when the data stopped longer ago than it spans', () => {
    const minutes = { step: 60, minSpan: 3600 };
    const twoHours = Array.from({ length: 120 }, (_, i) => 1_000_000 + i * 60);
    const last = twoHours[119]!;
    // Silent for an hour (less than the two hours shown): the axis runs to now.
    expect(fitTimeRange(twoHours, minutes, last + 3600)).to.deep.equal([twoHours[0], last + 3600]);
    // Silent for a day: it ends a bucket after the newest.
    expect(fitTimeRange(twoHours, minutes, last + DAY)).to.deep.equal([twoHours[0], last + 60]);
  });

  it('says what range is shown', () => {
    const from = Date.parse('2026-11-22T00:00:00Z') / 1000;
    const to = Date.parse('2026-12-01T21:00:00Z') / 1000;
    expect(describeTimeRange([from, to], 'UTC', false).replace(/\s/g, ' ')).to.equal('Shown: Nov 22 – Dec 1, 2026 (UTC), 10 days.');
  });
});
