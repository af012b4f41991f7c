import { expect } from 'chai';
import { CumulativeSeries, increaseOf } from '../../../src/ingest/cumulativeSeries.js';
import { histogramSummary } from '../../../src/ingest/recordSummary.js';
import { otlpRecords } from '../../../src/ingest/intake/otlp.js';
import { pointLogId } from '../../../src/ingest/intake/pointRecords.js';

describe('histogram summaries', () => {
  const buckets = [
    { lower: -Infinity, upper: 10, count: 2 },
    { lower: 10, upper: 100, count: 0 },
    { lower: 100, upper: Infinity, count: 3 },
  ];

  it('keep count, sum, min and max as sent, and put each sketch point inside its bucket', () => {
    const s = histogramSummary(5, 640, buckets, 3, 250);
    expect([s.count, s.sum, s.min, s.max]).to.deep.equal([5, 640, 3, 250]);
    expect(s.means).to.deep.equal([6.5, 175]);
    expect(s.weights).to.deep.equal([2, 3]);
  });

  it('estimate a missing sum from the bucket midpoints', () => {
    expect(histogramSummary(5, Number.NaN, buckets, 3, 250).sum).to.equal(2 * 6.5 + 3 * 175);
  });
});

describe('cumulative series', () => {
  const at = (timeNs: number, total: number, start = 's') => ({ timeNs: BigInt(timeNs), start, totals: [total] });

  it('prime on the first point, then give increases; a decrease or a new start is a reset', () => {
    expect(increaseOf(undefined, at(1, 10), 1)).to.equal(null);
    expect(increaseOf(at(1, 10), at(2, 15), 1)).to.deep.equal([5]);
    expect(increaseOf(at(2, 15), at(3, 4), 1)).to.deep.equal([4]);
    expect(increaseOf(at(2, 15), at(3, 20, 'new'), 1)).to.deep.equal([20]);
    // Not newer than the point held: a retry adds nothing.
    expect(increaseOf(at(2, 15), at(2, 15), 1)).to.equal(null);
    // A non-monotonic sum may go down.
    expect(increaseOf(at(2, 15), at(3, 12), 0)).to.deep.equal([-3]);
  });

  it('count each of two points of a series exported within one millisecond', () => {
    const series = new CumulativeSeries(10);
    const ms = Date.now();
    const upDown = (timeUnixNano: string, asInt: number) => ({
      resourceMetrics: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
          scopeMetrics: [
            {
              metrics: [
                { name: 'in_flight', sum: { aggregationTemporality: 2, isMonotonic: false, dataPoints: [{ startTimeUnixNano: '1', timeUnixNano, asInt }] } },
              ],
            },
          ],
        },
      ],
    });
    const values: number[] = [];
    // 5, then 3 a few hundred microseconds later, then 8 in the next millisecond: increases −2 and +5.
    for (const [time, level] of [
      [`${ms}000000`, 5],
      [`${ms}000400`, 3],
      [`${ms + 1}000000`, 8],
    ] as const) {
      const { outcome, seen } = otlpRecords(upDown(time, level), 'w', series, ms);
      series.commit('w', seen);
      values.push(...outcome.records.map((r) => r.value));
    }
    expect(values).to.deep.equal([-2, 5]);
  });

  it('forget the least recently seen series past the bound', () => {
    const series = new CumulativeSeries(2);
    series.commit('w', new Map([['a', at(1, 1)]]));
    series.commit('w', new Map([['b', at(1, 1)]]));
    series.commit('w', new Map([['c', at(1, 1)]]));
    expect([series.previous('w', 'a'), series.size]).to.deep.equal([undefined, 2]);
  });
});

describe('point log ids', () => {
  it('are the same UUID for the same series and time, and differ otherwise', () => {
    const id = pointLogId('w', 'series', '1000');
    expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(pointLogId('w', 'series', '1000')).to.equal(id);
    expect(pointLogId('w', 'series', '1001')).to.not.equal(id);
    expect(pointLogId('v', 'series', '1000')).to.not.equal(id);
  });
});

describe('OTLP exponential histograms', () => {
  it('become one summary record: exact count, sum, min, max, and sketch points within their buckets', () => {
    const now = Date.now();
    const request = {
      resourceMetrics: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
          scopeMetrics: [
            {
              metrics: [
                {
                  name: 'exp.latency',
                  exponentialHistogram: {
                    aggregationTemporality: 1,
                    // scale 0: base 2; positive buckets from offset 1 hold (2, 4], (4, 8]; one zero.
                    dataPoints: [
                      { timeUnixNano: now * 1e6, count: 6, sum: 24.5, min: 0, max: 7.5, scale: 0, zeroCount: 1, positive: { offset: 1, bucketCounts: [3, 2] } },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
    };
    const { outcome } = otlpRecords(request, 'w', new CumulativeSeries(10), now);
    expect(outcome.records).to.have.length(1);
    const [record] = outcome.records;
    expect([record!.value, record!.summary!.count, record!.summary!.min, record!.summary!.max]).to.deep.equal([24.5, 6, 0, 7.5]);
    expect(record!.summary!.means).to.deep.equal([0, 3, 5.75]);
    expect(record!.summary!.weights).to.deep.equal([1, 3, 2]);
  });
});
