import { expect } from 'chai';
import { AGGREGATES, CONDITIONS, type Aggregate, type Condition } from '../../../src/policies/model.js';
import { aggregateValue, closedBucketVerdict, meets, mayFireEarly, openBucketVerdict } from '../../../src/evaluation/verdict.js';
import { EMPTY_BUCKET, type BucketStats } from '../../../src/rollups/model.js';

const stats: BucketStats = { count: 4, sum: 10, min: 1, max: 4, p95: 3.9, p99: 3.98 };

describe('verdicts', () => {
  it('computes every aggregate of a bucket', () => {
    const values: Record<Aggregate, number> = { sum: 10, count: 4, average: 2.5, min: 1, max: 4, p95_est: 3.9, p99_est: 3.98 };
    for (const aggregate of AGGREGATES) expect(aggregateValue(aggregate, stats), aggregate).to.equal(values[aggregate]);
  });

  it('evaluates an empty bucket as count 0 and sum 0, and the others as no data', () => {
    for (const aggregate of AGGREGATES) {
      const expected = aggregate === 'count' || aggregate === 'sum' ? 0 : null;
      expect(aggregateValue(aggregate, EMPTY_BUCKET), aggregate).to.equal(expected);
    }
    expect(closedBucketVerdict({ aggregate: 'count', condition: 'lt', threshold: 1 }, EMPTY_BUCKET)).to.deep.equal({ value: 0, verdict: 'breach' });
    expect(closedBucketVerdict({ aggregate: 'average', condition: 'lt', threshold: 1 }, EMPTY_BUCKET)).to.deep.equal({ value: null, verdict: 'none' });
  });

  it('compares with each condition below, at and above the threshold', () => {
    const truth: Record<Condition, [boolean, boolean, boolean]> = {
      gt: [false, false, true],
      gte: [false, true, true],
      eq: [false, true, false],
      lte: [true, true, false],
      lt: [true, false, false],
    };
    for (const condition of CONDITIONS) {
      expect([meets(condition, 4, 5), meets(condition, 5, 5), meets(condition, 6, 5)], condition).to.deep.equal(truth[condition]);
    }
  });

  it('treats floats that differ by rounding only as equal, consistently across conditions', () => {
    expect(meets('eq', 0.1 + 0.2, 0.3)).to.equal(true);
    expect(meets('gt', 0.1 + 0.2, 0.3)).to.equal(false);
    expect(meets('lte', 0.1 + 0.2, 0.3)).to.equal(true);
    expect(meets('eq', 1e12 + 0.0001, 1e12)).to.equal(true);
    expect(meets('eq', 1.001, 1)).to.equal(false);
    expect(meets('eq', 0, 1e-12)).to.equal(true);
  });

  it('fires early only where the verdict cannot change (docs/api.md, Policies and evaluation)', () => {
    const allowed = new Set(['count/gt', 'count/gte', 'sum/gt', 'sum/gte', 'max/gt', 'max/gte', 'min/lt', 'min/lte']);
    for (const aggregate of AGGREGATES) {
      for (const condition of CONDITIONS) {
        expect(mayFireEarly({ aggregate, condition }), `${aggregate}/${condition}`).to.equal(allowed.has(`${aggregate}/${condition}`));
      }
    }
  });

  it('gives an open bucket a breach or no verdict, never a clear', () => {
    expect(openBucketVerdict({ aggregate: 'sum', condition: 'gt', threshold: 5 }, stats).verdict).to.equal('breach');
    expect(openBucketVerdict({ aggregate: 'sum', condition: 'gt', threshold: 50 }, stats).verdict).to.equal('none');
    expect(openBucketVerdict({ aggregate: 'average', condition: 'gt', threshold: 1 }, stats).verdict).to.equal('none');
    expect(openBucketVerdict({ aggregate: 'max', condition: 'lt', threshold: 100 }, stats).verdict).to.equal('none');
    expect(openBucketVerdict({ aggregate: 'min', condition: 'lte', threshold: 1 }, stats).verdict).to.equal('breach');
  });

  it('does not fire count or sum early once a negative value was seen', () => {
    const withNegative = { ...stats, min: -1 };
    expect(openBucketVerdict({ aggregate: 'sum', condition: 'gt', threshold: 5 }, withNegative).verdict).to.equal('none');
    expect(openBucketVerdict({ aggregate: 'count', condition: 'gte', threshold: 2 }, withNegative).verdict).to.equal('none');
    expect(openBucketVerdict({ aggregate: 'max', condition: 'gt', threshold: 3 }, withNegative).verdict).to.equal('breach');
  });
});
