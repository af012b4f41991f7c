import { expect } from 'chai';
import { AGGREGATES, CONDITIONS, type Aggregate, type Condition } from '../../../src/policies/model.js';
import { aggregateValue, closedBucketVerdict, meets, mayFireEarly, openBucketVerdict, pctChange, type Rule } from '../../../src/evaluation/verdict.js';
import { EMPTY_BUCKET, type BucketStats } from '../../../src/rollups/model.js';

/** A rule with the options at their defaults unless given. */
const rule = (r: Pick<Rule, 'aggregate' | 'condition' | 'threshold'> & Partial<Rule>): Rule => ({
  recovery_threshold: null,
  no_data: 'no_verdict',
  compare_to: null,
  min_count: 0,
  ...r,
});

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
    expect(closedBucketVerdict(rule({ aggregate: 'count', condition: 'lt', threshold: 1 }), EMPTY_BUCKET)).to.include({ value: 0, verdict: 'breach' });
    expect(closedBucketVerdict(rule({ aggregate: 'average', condition: 'lt', threshold: 1 }), EMPTY_BUCKET)).to.include({ value: null, verdict: 'none' });
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
    expect(openBucketVerdict(rule({ aggregate: 'sum', condition: 'gt', threshold: 5 }), stats).verdict).to.equal('breach');
    expect(openBucketVerdict(rule({ aggregate: 'sum', condition: 'gt', threshold: 50 }), stats).verdict).to.equal('none');
    expect(openBucketVerdict(rule({ aggregate: 'average', condition: 'gt', threshold: 1 }), stats).verdict).to.equal('none');
    expect(openBucketVerdict(rule({ aggregate: 'max', condition: 'lt', threshold: 100 }), stats).verdict).to.equal('none');
    expect(openBucketVerdict(rule({ aggregate: 'min', condition: 'lte', threshold: 1 }), stats).verdict).to.equal('breach');
  });

  it('does not fire count or sum early once a negative value was seen', () => {
    const withNegative = { ...stats, min: -1 };
    expect(openBucketVerdict(rule({ aggregate: 'sum', condition: 'gt', threshold: 5 }), withNegative).verdict).to.equal('none');
    expect(openBucketVerdict(rule({ aggregate: 'count', condition: 'gte', threshold: 2 }), withNegative).verdict).to.equal('none');
    expect(openBucketVerdict(rule({ aggregate: 'max', condition: 'gt', threshold: 3 }), withNegative).verdict).to.equal('breach');
  });

  describe('rule options', () => {
    const empty = EMPTY_BUCKET;
    const of = (count: number, sum: number, min = sum / Math.max(count, 1), max = min): BucketStats => ({ count, sum, min, max, p95: max, p99: max });

    it('no_data decides an empty bucket for average, min, max, p95_est and p99_est, never for count or sum', () => {
      for (const aggregate of AGGREGATES) {
        for (const [noData, expected] of [
          ['no_verdict', 'none'],
          ['breach', 'breach'],
          ['ok', 'clear'],
        ] as const) {
          const judged = closedBucketVerdict(rule({ aggregate, condition: 'gt', threshold: 5, no_data: noData }), empty);
          const countOrSum = aggregate === 'count' || aggregate === 'sum';
          expect(judged, `${aggregate} ${noData}`).to.include(countOrSum ? { value: 0, verdict: 'clear' } : { value: null, verdict: expected });
        }
      }
    });

    it('min_count: a bucket with fewer logs gives no verdict', () => {
      const r = rule({ aggregate: 'average', condition: 'gt', threshold: 1, min_count: 3 });
      expect(closedBucketVerdict(r, of(2, 20)).verdict).to.equal('none');
      expect(closedBucketVerdict(r, of(3, 30)).verdict).to.equal('breach');
    });

    it('compare_to: the percentage change against the comparison bucket, in both directions', () => {
      const up = rule({ aggregate: 'count', condition: 'gt', threshold: 50, compare_to: 'previous_bucket' });
      expect(closedBucketVerdict(up, of(16, 16), of(10, 10))).to.include({ value: 60, aggregateValue: 16, comparisonValue: 10, verdict: 'breach' });
      expect(closedBucketVerdict(up, of(15, 15), of(10, 10))).to.include({ value: 50, verdict: 'clear' });
      const down = rule({ aggregate: 'average', condition: 'lt', threshold: -20, compare_to: 'previous_7d' });
      expect(closedBucketVerdict(down, of(2, 14), of(2, 20))).to.include({ value: -30, verdict: 'breach' });
    });

    it('compare_to gives no verdict over an empty or zero comparison bucket, or one below min_count', () => {
      const r = rule({ aggregate: 'sum', condition: 'gt', threshold: 50, compare_to: 'previous_1d', min_count: 2 });
      expect(closedBucketVerdict(r, of(5, 50), empty)).to.include({ value: null, verdict: 'none' });
      expect(closedBucketVerdict(r, of(5, 50), of(3, 0, -1, 1))).to.include({ value: null, comparisonValue: 0, verdict: 'none' });
      expect(closedBucketVerdict(r, of(5, 50), of(1, 10))).to.include({ value: null, verdict: 'none' });
      expect(closedBucketVerdict(r, of(1, 50), of(5, 10))).to.include({ verdict: 'none' });
      expect(closedBucketVerdict(r, of(5, 50), of(5, 10))).to.include({ value: 400, verdict: 'breach' });
    });

    it('a positive change means above, also from a negative base', () => {
      expect(pctChange(-5, -10)).to.equal(50);
      expect(pctChange(-20, -10)).to.equal(-100);
      expect(pctChange(15, 10)).to.equal(50);
    });

    it('recovery_threshold: an open alert stays open between the two thresholds and resolves past the recovery one', () => {
      const r = rule({ aggregate: 'max', condition: 'gt', threshold: 90, recovery_threshold: 80 });
      expect(closedBucketVerdict(r, of(1, 95))).to.include({ verdict: 'breach', openVerdict: 'breach' });
      expect(closedBucketVerdict(r, of(1, 85))).to.include({ verdict: 'clear', openVerdict: 'breach' });
      expect(closedBucketVerdict(r, of(1, 80))).to.include({ verdict: 'clear', openVerdict: 'clear' });
      const plain = rule({ aggregate: 'max', condition: 'gt', threshold: 90 });
      expect(closedBucketVerdict(plain, of(1, 85))).to.include({ verdict: 'clear', openVerdict: 'clear' });
    });

    it('fires early with compare_to and min_count only once the breach is final', () => {
      const r = rule({ aggregate: 'count', condition: 'gt', threshold: 50, compare_to: 'previous_bucket', min_count: 3 });
      expect(openBucketVerdict(r, of(2, 2), of(1, 1)).verdict, 'below min_count').to.equal('none');
      expect(openBucketVerdict(r, of(4, 4), of(4, 4)).verdict, 'not yet above').to.equal('none');
      expect(openBucketVerdict(r, of(7, 7), of(4, 4)).verdict, 'final').to.equal('breach');
      expect(openBucketVerdict(r, of(7, 7), empty).verdict, 'no base').to.equal('none');
      const noData = rule({ aggregate: 'max', condition: 'gt', threshold: 1, no_data: 'breach' });
      expect(openBucketVerdict(noData, empty).verdict, 'an empty open bucket may still get logs').to.equal('none');
    });
  });
});
