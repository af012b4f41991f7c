import { expect } from 'chai';
import { localMidnightsWithin, planRollupReads, type RollupPlan } from '../../../src/rollups/readPlan.js';
import { localDayStart } from '../../../src/time/localDay.js';

const range = (from: string, to: string) => ({ from: Date.parse(from), to: Date.parse(to) });
const shown = (plan: RollupPlan) =>
  Object.fromEntries(
    Object.entries(plan).map(([grain, ranges]) => [
      grain,
      ranges.map((r) => `${new Date(r.from).toISOString().slice(5, 16)}→${new Date(r.to).toISOString().slice(5, 16)}`),
    ]),
  );

describe('rollup read plan', () => {
  it('covers a UTC week with whole days, then whole hours, then the minutes of the last hour', () => {
    expect(shown(planRollupReads(range('2026-11-16T00:00Z', '2026-11-20T12:01Z'), 'UTC', true))).to.deep.equal({
      day: ['11-16T00:00→11-20T00:00'],
      hour: ['11-20T00:00→11-20T12:00'],
      minute: ['11-20T12:00→11-20T12:01'],
    });
  });

  it('in Asia/Kolkata, starts a day at 18:30 UTC with half an hour of minutes', () => {
    expect(shown(planRollupReads(range('2026-11-19T18:30Z', '2026-11-20T06:01Z'), 'Asia/Kolkata', true))).to.deep.equal({
      day: [],
      hour: ['11-19T19:00→11-20T06:00'],
      minute: ['11-19T18:30→11-19T19:00', '11-20T06:00→11-20T06:01'],
    });
    expect(shown(planRollupReads(range('2026-11-16T18:30Z', '2026-11-20T06:01Z'), 'Asia/Kolkata', true)).day).to.deep.equal(['11-16T18:30→11-19T18:30']);
  });

  it('uses local days of the zone, 25 hours long across the fall-back Sunday (America/New_York)', () => {
    expect(shown(planRollupReads(range('2026-10-31T04:00Z', '2026-11-02T07:30Z'), 'America/New_York', true))).to.deep.equal({
      day: ['10-31T04:00→11-02T05:00'],
      hour: ['11-02T05:00→11-02T07:00'],
      minute: ['11-02T07:00→11-02T07:30'],
    });
  });

  it('reads hours and minutes only when day rows are not to be trusted', () => {
    expect(shown(planRollupReads(range('2026-11-16T00:00Z', '2026-11-18T00:10Z'), 'UTC', false))).to.deep.equal({
      day: [],
      hour: ['11-16T00:00→11-18T00:00'],
      minute: ['11-18T00:00→11-18T00:10'],
    });
  });

  it('reads minutes alone for a range inside one hour', () => {
    expect(shown(planRollupReads(range('2026-11-16T10:00Z', '2026-11-16T10:21Z'), 'UTC', true))).to.deep.equal({
      day: [],
      hour: [],
      minute: ['11-16T10:00→11-16T10:21'],
    });
  });
});

describe('local midnights', () => {
  it('are the day buckets the ingest path writes, through a year, in zones with DST, half-hour offsets and skipped midnights', () => {
    for (const timezone of ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'America/Santiago', 'Australia/Lord_Howe', 'Asia/Gaza']) {
      const year = range('2026-01-01T00:00Z', '2027-01-01T00:00Z');
      const fromIngest: number[] = [];
      for (let t = localDayStart(timezone, year.from); t <= year.to; t = localDayStart(timezone, t + 26 * 3_600_000)) if (t >= year.from) fromIngest.push(t);
      expect(localMidnightsWithin(timezone, year), timezone).to.deep.equal(fromIngest);
    }
  });
});
