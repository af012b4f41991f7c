import { expect } from 'chai';
import { isUuid, newId } from '../../src/ids.js';

describe('ids', () => {
  it('are UUIDv7: version 7, RFC variant, the creation time in their first 48 bits', () => {
    const before = Date.now();
    const id = newId();
    const after = Date.now();
    expect(isUuid(id)).to.equal(true);
    expect(id[14]).to.equal('7');
    expect('89ab').to.include(id[19]!);
    const ms = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    expect(ms).to.be.within(before, after + 1);
  });

  it('are unique and sort in the order they were made, many in one millisecond included', () => {
    const ids = Array.from({ length: 200_000 }, () => newId());
    expect(new Set(ids).size).to.equal(ids.length);
    for (let i = 1; i < ids.length; i++) if (!(ids[i - 1]! < ids[i]!)) expect.fail(`${ids[i - 1]} then ${ids[i]}`);
  });
});
