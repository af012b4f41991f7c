import { expect } from 'chai';
import { labelsFingerprint, labelsText, sortedLabels } from '../../../src/labels/labels.js';

const asDecimal = (hex: string) => BigInt(`0x${hex}`).toString();

describe('labels', () => {
  describe('labelsFingerprint', () => {
    // The figures of Prometheus' own tests of model.LabelSet's fingerprint (prometheus/common, model/signature_test.go).
    it("gives Prometheus' fingerprint of a label set", () => {
      expect(asDecimal(labelsFingerprint({}))).to.equal('14695981039346656037');
      expect(asDecimal(labelsFingerprint({ name: 'garland, briggs', fear: 'love is not enough' }))).to.equal('5799056148416392346');
      expect(asDecimal(labelsFingerprint({ 'first-label': 'first-label-value' }))).to.equal('5146282821936882169');
      expect(asDecimal(labelsFingerprint({ 'first-label': 'first-label-value', 'second-label': 'second-label-value' }))).to.equal('3195800080984914717');
    });

    it('is 16 hex digits, whatever the order of the names', () => {
      const a = labelsFingerprint({ b: '2', a: '1', é: 'ü' });
      expect(a).to.match(/^[0-9a-f]{16}$/);
      expect(labelsFingerprint({ é: 'ü', a: '1', b: '2' })).to.equal(a);
      expect(labelsFingerprint({ a: '1', b: '3', é: 'ü' })).to.not.equal(a);
    });

    it('tells a name from a value', () => {
      expect(labelsFingerprint({ ab: 'c' })).to.not.equal(labelsFingerprint({ a: 'bc' }));
    });
  });

  it('sorts names for storage and display', () => {
    expect(Object.keys(sortedLabels({ route: '/', code: '500', agent: 'a' }))).to.deep.equal(['agent', 'code', 'route']);
  });

  it('writes labels as a person reads them, leaving out what is said elsewhere', () => {
    expect(labelsText({ route: '/checkout', code: '500', agent: 'web-1' }, ['agent'])).to.equal('code="500", route="/checkout"');
    expect(labelsText({})).to.equal('');
  });
});
