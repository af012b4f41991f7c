import { expect } from 'chai';
import { bucketAt } from '../../../src/rollups/buckets.js';
import { comparisonBucketOf } from '../../../src/evaluation/comparison.js';
import type { CompareTo } from '../../../src/policies/model.js';
import type { Period } from '../../../src/rollups/model.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const compared = (period: Period, timezone: string, bucketAtIso: string, compareTo: CompareTo) => {
  const b = comparisonBucketOf(period, timezone, bucketAt(period, timezone, at(bucketAtIso)), compareTo);
  return [iso(b.start), iso(b.end)];
};

describe('comparison buckets', () => {
  it('previous_bucket is the bucket before', () => {
    expect(compared('minute', 'UTC', '2026-11-21T10:05:30Z', 'previous_bucket')).to.deep.equal(['2026-11-21T10:04:00.000Z', '2026-11-21T10:05:00.000Z']);
    // The day before a 23-hour day, in the event's timezone.
    expect(compared('day', 'Europe/Berlin', '2026-03-30T12:00:00Z', 'previous_bucket')).to.deep.equal(['2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z']);
  });

  it('previous_1d is the same local clock bucket a local day earlier: 23 hours back after spring-forward', () => {
    // 12:00 CEST on the day of the change was 12:00 CET the day before: 23 hours earlier.
    expect(compared('hour', 'Europe/Berlin', '2026-03-29T10:00:00Z', 'previous_1d')).to.deep.equal(['2026-03-28T11:00:00.000Z', '2026-03-28T12:00:00.000Z']);
    expect(compared('hour', 'Europe/Berlin', '2026-03-30T10:00:00Z', 'previous_1d')).to.deep.equal(['2026-03-29T10:00:00.000Z', '2026-03-29T11:00:00.000Z']);
    // 25 hours back after fall-back.
    expect(compared('minute', 'Europe/Berlin', '2026-10-25T12:07:00Z', 'previous_1d')).to.deep.equal(['2026-10-24T11:07:00.000Z', '2026-10-24T11:08:00.000Z']);
    expect(compared('hour', 'Asia/Kolkata', '2026-11-21T10:00:00Z', 'previous_1d')).to.deep.equal(['2026-11-20T10:00:00.000Z', '2026-11-20T11:00:00.000Z']);
  });

  it('previous_7d is the same local clock bucket 7 local days earlier, across a DST change', () => {
    // 10:30 EDT on Tuesday after the change was 10:30 EST a week before.
    expect(compared('minute', 'America/New_York', '2026-03-10T14:30:00Z', 'previous_7d')).to.deep.equal([
      '2026-03-03T15:30:00.000Z',
      '2026-03-03T15:31:00.000Z',
    ]);
    // A local day compares with the local day a week before, whatever their lengths.
    expect(compared('day', 'Europe/Berlin', '2026-10-27T10:00:00Z', 'previous_7d')).to.deep.equal(['2026-10-19T22:00:00.000Z', '2026-10-20T22:00:00.000Z']);
    expect(compared('day', 'Europe/Berlin', '2026-10-25T10:00:00Z', 'previous_7d')).to.deep.equal(['2026-10-17T22:00:00.000Z', '2026-10-18T22:00:00.000Z']);
  });
});
