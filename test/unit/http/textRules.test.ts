import { expect } from 'chai';
import { nestingDepth, textProblems } from '../../../src/validation/textRules.js';

describe('text no store can keep', () => {
  it('finds NUL characters and lone surrogates in strings at any depth, with JSON Pointer paths', () => {
    const value = { a: ['ok', 'x\u0000y'], 'b/c~d': { e: '\ud800' }, f: '😀', g: 'low \udc00 alone' };
    expect(textProblems(value, '/3')).to.deep.equal([
      { path: '/3/a/1', message: 'must not contain NUL (\\u0000) characters' },
      { path: '/3/b~1c~0d/e', message: 'must be well-formed Unicode (it holds a lone UTF-16 surrogate)' },
      { path: '/3/g', message: 'must be well-formed Unicode (it holds a lone UTF-16 surrogate)' },
    ]);
  });

  it('reports a bad key at the object holding it, and not what lies under it', () => {
    expect(textProblems({ outer: { 'k\u0000': 'v\u0000' } })).to.deep.equal([{ path: '/outer', message: 'has a key that contains a NUL (\\u0000) character' }]);
  });

  it('accepts well-formed text, numbers, booleans and null', () => {
    expect(textProblems({ a: 'plain', b: '𝄞 and 😀', c: [1, true, null] })).to.deep.equal([]);
  });

  it('walks and measures 100,000 levels of nesting without overflowing the stack', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(nestingDepth(deep)).to.equal(100_000);
    expect(textProblems(deep)).to.have.length(1);
  });
});
