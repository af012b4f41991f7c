// promtool's expanding notation, as a policy unit test's series write their values.
import { expect } from 'chai';
import { expandValues } from '../../../src/evaluation/unitTests.js';

describe("policy unit tests: promtool's expanding notation", () => {
  it('expands values, gaps and runs as promtool does', () => {
    expect(expandValues('1 2 3')).to.deep.equal([1, 2, 3]);
    expect(expandValues('1+2x3')).to.deep.equal([1, 3, 5, 7]);
    expect(expandValues('10-1x2')).to.deep.equal([10, 9, 8]);
    expect(expandValues('100x2')).to.deep.equal([100, 100, 100]);
    expect(expandValues('_ 1 _x2 7')).to.deep.equal([null, 1, null, null, 7]);
    expect(expandValues('-1.5 2e3 .5')).to.deep.equal([-1.5, 2000, 0.5]);
    expect(expandValues('  ')).to.deep.equal([]);
  });

  it('refuses what is not a value, and runs past the bound, before making them', () => {
    expect(() => expandValues('1 abc')).to.throw('"abc" is not a value');
    expect(() => expandValues('1x')).to.throw('is not a value');
    expect(() => expandValues('NaN')).to.throw('is not a value');
    expect(() => expandValues('Infinity')).to.throw('is not a value');
    expect(() => expandValues('1x99999999999')).to.throw('more than 10000 values');
    expect(() => expandValues('_x99999999999')).to.throw('more than 10000 values');
    expect(expandValues('1x9999')).to.have.length(10_000);
  });
});
