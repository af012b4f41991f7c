import { expect } from 'chai';
import { formatBucketStart, formatDuration, formatSpan, formatTime, validZone } from '../../../web/shared/time.js';

describe('console times with their zone', () => {
  const at = '2026-12-01T20:05:30.000Z';

  it('writes a time in the zone it names', () => {
    expect(formatTime(at, 'Europe/Berlin')).to.equal('Dec 1, 2026, 21:05 (Europe/Berlin)');
    expect(formatTime(at, 'America/New_York', { seconds: true })).to.equal('Dec 1, 2026, 15:05:30 (America/New_York)');
    expect(formatTime(Date.parse(at), 'UTC', { withoutZone: true })).to.equal('Dec 1, 2026, 20:05');
    // No time, or an unknown zone: a dash, and UTC (named).
    expect([formatTime(null, 'UTC'), formatTime('not a time', 'UTC')]).to.deep.equal(['–', '–']);
    expect(formatTime(at, 'Mars/Olympus')).to.equal('Dec 1, 2026, 20:05 (UTC)');
    expect(validZone('Asia/Kolkata')).to.equal('Asia/Kolkata');
  });

  it('writes a day bucket as its date, other buckets with their time', () => {
    expect(formatBucketStart('2026-11-30T23:00:00.000Z', 'day', 'Europe/Berlin')).to.equal('Dec 1, 2026 (Europe/Berlin)');
    expect(formatBucketStart(at, 'minute', 'Asia/Kolkata', { withoutZone: true })).to.equal('Dec 2, 2026, 01:35');
  });

  it('writes a span, leaving out what both ends share, and its length', () => {
    const span = (from: string, to: string, withTimes: boolean) => formatSpan(from, to, 'Europe/Berlin', withTimes).replace(/\s/g, ' ');
    expect(span('2026-11-22T00:00:00Z', at, false)).to.equal('Nov 22 – Dec 1, 2026 (Europe/Berlin)');
    expect(span('2026-12-01T16:05:00Z', at, true)).to.equal('Dec 1, 2026, 17:05 – 21:05 (Europe/Berlin)');
    expect([formatDuration(3600), formatDuration(9.9 * 86_400), formatDuration(90), formatDuration(20)]).to.deep.equal([
      '1 hour',
      '10 days',
      '2 minutes',
      '20 seconds',
    ]);
  });
});
