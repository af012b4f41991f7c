import { expect } from 'chai';
import { AppError } from '../../../src/errors.js';
import { localDayStart } from '../../../src/time/localDay.js';
import { comparedWindows, COMPARISONS, SUPPORTED_COMPARISONS, WINDOW_PERIODS, type Comparison, type WindowPeriod } from '../../../src/analytics/windows.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

/** The windows as ISO strings: [current from, current to, previous from, previous to]. */
function windowsOf(now: string, timezone: string, period: WindowPeriod, previous: Comparison): string[] {
  const w = comparedWindows(at(now), timezone, period, previous);
  return [iso(w.current.from), iso(w.current.to), iso(w.previous.from), iso(w.previous.to)];
}

describe('analytics windows', () => {
  describe('in UTC, on Sunday 2026-11-22 at 02:51:33', () => {
    const now = '2026-11-22T02:51:33.123Z';
    const cases: [WindowPeriod, Comparison, string[]][] = [
      ['1h', 'previous_window', ['2026-11-22T02:00', '2026-11-22T02:52', '2026-11-22T01:00', '2026-11-22T01:52']],
      ['1h', 'previous_1d', ['2026-11-22T02:00', '2026-11-22T02:52', '2026-11-21T02:00', '2026-11-21T02:52']],
      ['1h', 'previous_7d', ['2026-11-22T02:00', '2026-11-22T02:52', '2026-11-15T02:00', '2026-11-15T02:52']],
      ['1h', 'previous_1m', ['2026-11-22T02:00', '2026-11-22T02:52', '2026-10-23T02:00', '2026-10-23T02:52']],
      ['1d', 'previous_window', ['2026-11-22T00:00', '2026-11-22T02:52', '2026-11-21T00:00', '2026-11-21T02:52']],
      ['1d', 'previous_7d', ['2026-11-22T00:00', '2026-11-22T02:52', '2026-11-15T00:00', '2026-11-15T02:52']],
      ['1d', 'previous_1m', ['2026-11-22T00:00', '2026-11-22T02:52', '2026-10-23T00:00', '2026-10-23T02:52']],
      ['7d', 'previous_window', ['2026-11-16T00:00', '2026-11-22T02:52', '2026-11-09T00:00', '2026-11-15T02:52']],
      ['7d', 'previous_1m', ['2026-11-16T00:00', '2026-11-22T02:52', '2026-10-19T00:00', '2026-10-25T02:52']],
      ['1m', 'previous_window', ['2026-11-01T00:00', '2026-11-22T02:52', '2026-10-01T00:00', '2026-10-22T02:52']],
    ];
    for (const [period, previous, expected] of cases) {
      it(`${period}/${previous}`, () => {
        expect(windowsOf(now, 'UTC', period, previous)).to.deep.equal(expected.map((t) => `${t}:00.000Z`));
      });
    }
  });

  it('end after the minute that holds now, so logs sent a moment ago count; a window never ends inside a minute', () => {
    const w = comparedWindows(at('2026-11-22T10:15:00.000Z'), 'UTC', '1h', 'previous_window');
    expect(iso(w.current.to)).to.equal('2026-11-22T10:16:00.000Z');
  });

  describe('across DST changes, in local calendar terms', () => {
    it('1d/previous_window on the 23-hour day in Europe/Berlin: 9 hours today against 10 yesterday, both 00:00 to 10:01', () => {
      expect(windowsOf('2026-03-29T08:00:30Z', 'Europe/Berlin', '1d', 'previous_window')).to.deep.equal([
        '2026-03-28T23:00:00.000Z', // 00:00 CET
        '2026-03-29T08:01:00.000Z', // 10:01 CEST
        '2026-03-27T23:00:00.000Z', // 00:00 CET the day before
        '2026-03-28T09:01:00.000Z', // 10:01 CET
      ]);
    });

    it('1h/previous_1d the day after spring forward in Europe/Berlin: yesterday 02:00 did not exist and is read as 03:00', () => {
      expect(windowsOf('2026-03-30T00:45:00Z', 'Europe/Berlin', '1h', 'previous_1d')).to.deep.equal([
        '2026-03-30T00:00:00.000Z', // 02:00 CEST
        '2026-03-30T00:46:00.000Z',
        '2026-03-29T01:00:00.000Z', // 03:00 CEST, where the skipped 02:00 lands
        '2026-03-29T01:46:00.000Z',
      ]);
    });

    it('1h/previous_window in the repeated hour after clocks fall back (Europe/Berlin) is the real hour before', () => {
      // 01:20Z is 02:20 CET, the second 02:20 of the night; the hour before is 02:00–02:21 CEST.
      expect(windowsOf('2026-10-25T01:20:00Z', 'Europe/Berlin', '1h', 'previous_window')).to.deep.equal([
        '2026-10-25T01:00:00.000Z',
        '2026-10-25T01:21:00.000Z',
        '2026-10-25T00:00:00.000Z',
        '2026-10-25T00:21:00.000Z',
      ]);
    });

    it('1d on the 25-hour day in America/New_York, against yesterday and last week', () => {
      expect(windowsOf('2026-11-01T17:00:00Z', 'America/New_York', '1d', 'previous_window')).to.deep.equal([
        '2026-11-01T04:00:00.000Z', // 00:00 EDT
        '2026-11-01T17:01:00.000Z', // 12:01 EST
        '2026-10-31T04:00:00.000Z',
        '2026-10-31T16:01:00.000Z', // 12:01 EDT
      ]);
      expect(windowsOf('2026-11-01T17:00:00Z', 'America/New_York', '1d', 'previous_7d').slice(2)).to.deep.equal([
        '2026-10-25T04:00:00.000Z',
        '2026-10-25T16:01:00.000Z',
      ]);
    });

    it('7d/previous_window across spring forward in America/New_York: Monday 00:00 EST to Tuesday 11:01 EST', () => {
      expect(windowsOf('2026-03-10T15:00:00Z', 'America/New_York', '7d', 'previous_window')).to.deep.equal([
        '2026-03-09T04:00:00.000Z', // Monday 00:00 EDT
        '2026-03-10T15:01:00.000Z', // Tuesday 11:01 EDT
        '2026-03-02T05:00:00.000Z', // Monday 00:00 EST
        '2026-03-03T16:01:00.000Z', // Tuesday 11:01 EST
      ]);
    });

    it('a day whose midnight is skipped (America/Santiago) starts at its first instant, as its day rollup does', () => {
      const [from, to, previousFrom, previousTo] = windowsOf('2026-09-06T15:00:00Z', 'America/Santiago', '1d', 'previous_window');
      expect([from, to, previousFrom, previousTo]).to.deep.equal([
        '2026-09-06T04:00:00.000Z', // 01:00 -03, the first instant of 6 September
        '2026-09-06T15:01:00.000Z',
        '2026-09-05T04:00:00.000Z', // 00:00 -04
        '2026-09-05T16:01:00.000Z', // 12:01 -04
      ]);
      expect(iso(localDayStart('America/Santiago', at('2026-09-06T15:00:00Z')))).to.equal(from);
    });
  });

  describe('in Asia/Kolkata (UTC+05:30)', () => {
    it('1h is the local clock hour, starting at half past in UTC', () => {
      expect(windowsOf('2026-11-22T02:51:33Z', 'Asia/Kolkata', '1h', 'previous_window')).to.deep.equal([
        '2026-11-22T02:30:00.000Z',
        '2026-11-22T02:52:00.000Z',
        '2026-11-22T01:30:00.000Z',
        '2026-11-22T01:52:00.000Z',
      ]);
    });

    it('1d starts at local midnight, 18:30 UTC the day before', () => {
      expect(windowsOf('2026-11-22T02:51:33Z', 'Asia/Kolkata', '1d', 'previous_window')).to.deep.equal([
        '2026-11-21T18:30:00.000Z',
        '2026-11-22T02:52:00.000Z',
        '2026-11-20T18:30:00.000Z',
        '2026-11-21T02:52:00.000Z',
      ]);
    });
  });

  describe('1m/previous_window: the month before, to the same day and time, cut at its end', () => {
    it('on 31 March the previous window is the whole of February (28 days)', () => {
      expect(windowsOf('2026-03-31T08:00:00Z', 'UTC', '1m', 'previous_window')).to.deep.equal([
        '2026-03-01T00:00:00.000Z',
        '2026-03-31T08:01:00.000Z',
        '2026-02-01T00:00:00.000Z',
        '2026-03-01T00:00:00.000Z',
      ]);
    });

    it('on 31 March of a leap year, the whole of February (29 days)', () => {
      expect(windowsOf('2028-03-31T08:00:00Z', 'UTC', '1m', 'previous_window').slice(2)).to.deep.equal([
        '2028-02-01T00:00:00.000Z',
        '2028-03-01T00:00:00.000Z',
      ]);
    });

    it('on 28 March, February up to the 28th at the same time', () => {
      expect(windowsOf('2026-03-28T10:00:00Z', 'UTC', '1m', 'previous_window').slice(2)).to.deep.equal([
        '2026-02-01T00:00:00.000Z',
        '2026-02-28T10:01:00.000Z',
      ]);
    });

    it('in the last minute of April, the whole of April against the whole of March', () => {
      expect(windowsOf('2026-04-30T23:59:30Z', 'UTC', '1m', 'previous_window')).to.deep.equal([
        '2026-04-01T00:00:00.000Z',
        '2026-05-01T00:00:00.000Z',
        '2026-03-01T00:00:00.000Z',
        '2026-04-01T00:00:00.000Z',
      ]);
    });

    it('in January, December of the year before', () => {
      expect(windowsOf('2027-01-15T12:00:00Z', 'UTC', '1m', 'previous_window').slice(2)).to.deep.equal([
        '2026-12-01T00:00:00.000Z',
        '2026-12-15T12:01:00.000Z',
      ]);
    });

    it('in Europe/Berlin, local months: March (with its 23-hour day) against February', () => {
      expect(windowsOf('2026-03-31T08:00:00Z', 'Europe/Berlin', '1m', 'previous_window')).to.deep.equal([
        '2026-02-28T23:00:00.000Z',
        '2026-03-31T08:01:00.000Z',
        '2026-01-31T23:00:00.000Z',
        '2026-02-28T23:00:00.000Z',
      ]);
    });
  });

  it('previous_1m is 30 local days for 1d and 28 (four whole weeks) for 7d', () => {
    expect(windowsOf('2026-03-31T08:00:00Z', 'UTC', '1d', 'previous_1m').slice(2)).to.deep.equal(['2026-03-01T00:00:00.000Z', '2026-03-01T08:01:00.000Z']);
    expect(windowsOf('2026-03-31T08:00:00Z', 'UTC', '7d', 'previous_1m').slice(2)).to.deep.equal(['2026-03-02T00:00:00.000Z', '2026-03-03T08:01:00.000Z']);
  });

  it('refuse an unsupported combination with 400 unsupported_combination naming the supported pairs', () => {
    for (const period of WINDOW_PERIODS) {
      for (const previous of COMPARISONS.filter((c) => !SUPPORTED_COMPARISONS[period].includes(c))) {
        let error: unknown;
        try {
          comparedWindows(Date.now(), 'UTC', period, previous);
        } catch (err) {
          error = err;
        }
        expect(error, `${period}/${previous}`).to.be.instanceOf(AppError);
        expect((error as AppError).code).to.equal('unsupported_combination');
        expect((error as AppError).message).to.contain('1m with previous_window');
      }
    }
  });

  it('hold for every supported pair, many instants and zones: now inside the current window, the comparison entirely before it', () => {
    const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Pacific/Chatham'];
    const start = at('2026-01-01T00:00:00Z');
    // About every 1.8 days through a year, at a different time of day each step.
    for (let i = 0; i < 200; i++) {
      const now = start + i * 157_802_027;
      for (const timezone of zones) {
        for (const period of WINDOW_PERIODS) {
          for (const previous of SUPPORTED_COMPARISONS[period]) {
            const w = comparedWindows(now, timezone, period, previous);
            const label = `${timezone} ${iso(now)} ${period}/${previous}`;
            expect(w.current.from, label).to.be.at.most(now);
            expect(w.current.to, label).to.be.above(now);
            expect(w.previous.from, label).to.be.below(w.previous.to);
            expect(w.previous.to, label).to.be.at.most(w.current.from);
            if (period !== '1h') expect(w.current.from, label).to.equal(localDayStart(timezone, w.current.from));
          }
        }
      }
    }
  });
});
