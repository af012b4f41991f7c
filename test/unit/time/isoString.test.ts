import { expect } from 'chai';
import { isoString } from '../../../src/time/isoString.js';

describe('isoString', () => {
  it('writes what Date#toISOString writes, across leap days, century years and the ends of years', () => {
    const instants = [
      0,
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(2000, 2, 1),
      Date.UTC(2024, 1, 29, 12, 0, 0, 7),
      Date.UTC(2100, 1, 28, 23, 59, 59, 999),
      Date.UTC(2100, 2, 1),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    ];
    // And a spread of instants, two of them in the same day in a row (the day is cached).
    for (let i = 0; i < 20_000; i++) {
      const ms = Math.floor(Math.random() * Date.UTC(2200, 0, 1));
      instants.push(ms, ms + 1);
    }
    for (const ms of instants) expect(isoString(ms), String(ms)).to.equal(new Date(ms).toISOString());
  });
});
