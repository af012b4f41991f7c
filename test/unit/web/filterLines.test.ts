import { expect } from 'chai';
import { filterJson, filterLines } from '../../../web/console/filterLines.js';

describe("console: a fleet policy's filter as lines", () => {
  it('reads lines as the API filter, several values joined by "or", a key given twice adding values', () => {
    expect(JSON.parse(filterJson('code = 500 or 503\nagent = web-1'))).to.deep.equal({ code: ['500', '503'], agent: 'web-1' });
    expect(JSON.parse(filterJson('region=eu\n\nregion = us '))).to.deep.equal({ region: ['eu', 'us'] });
    expect(filterJson('  \n')).to.equal('');
  });

  it('sends a line without "=" as written, for the API to refuse and name', () => {
    expect(filterJson('code 500')).to.equal('code 500');
  });

  it('writes a filter read back as lines, and round-trips', () => {
    const json = '{"code":["500","503"],"agent":"web-1"}';
    expect(filterLines(json)).to.equal('code = 500 or 503\nagent = web-1');
    expect(JSON.parse(filterJson(filterLines(json)))).to.deep.equal(JSON.parse(json));
    expect(filterLines('')).to.equal('');
  });
});
