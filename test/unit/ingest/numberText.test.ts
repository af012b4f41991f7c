import { expect } from 'chai';
import { decimalText, integerText } from '../../../src/ingest/numberText.js';

describe('numberText', () => {
  it('decimalText writes what String writes, for values with few decimals and any other', () => {
    const values = [
      0,
      -0,
      1,
      -1,
      0.5,
      0.000001,
      -0.000001,
      0.0000001,
      1e-7,
      123.4,
      57.123456,
      999_999_999.999999,
      1e9,
      -1e9,
      1e15,
      1e21,
      1e300,
      0.1 + 0.2,
      5e-324,
    ];
    for (let i = 0; i < 50_000; i++) {
      const scale = 10 ** Math.floor(Math.random() * 16 - 6);
      const random = (Math.random() - 0.5) * scale;
      // The same magnitude rounded to millionths, thousandths and units: the fast path.
      values.push(random, Math.round(random * 1e6) / 1e6, Math.round(random * 1e3) / 1e3, Math.round(random));
    }
    for (const value of values) expect(decimalText(value), String(value)).to.equal(String(value));
  });

  it('integerText writes what String writes for ms counts', () => {
    const values = [0, 1, 999_999, 1_000_000, 1_000_001, 1_764_000_000_000, Date.UTC(9999, 11, 31, 23, 59, 59, 999)];
    for (let i = 0; i < 50_000; i++) values.push(Math.floor(Math.random() * Date.UTC(9999, 11, 31)));
    for (const value of values) expect(integerText(value), String(value)).to.equal(String(value));
  });
});
