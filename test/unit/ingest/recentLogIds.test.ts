import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { DEDUP_WINDOW_MS, RecentLogIds, uuidWords } from '../../../src/ingest/recentLogIds.js';

describe('recent log ids', () => {
  it('tells apart ids that differ in a single hex digit, wherever it is', () => {
    const ids = new RecentLogIds(1_000_000);
    const id = '0123abcd-4567-89ef-a0b1-c2d3e4f50617';
    ids.add('a', uuidWords(id));
    for (let at = 0; at < id.length; at++) {
      if (id[at] === '-') continue;
      const other = `${id.slice(0, at)}${id[at] === 'f' ? 'e' : 'f'}${id.slice(at + 1)}`;
      expect(ids.has('a', uuidWords(other)), other).to.equal(false);
    }
    expect(ids.has('a', uuidWords(id.toUpperCase()))).to.equal(true);
  });

  it('remembers ids per workspace for at least 10 minutes, then forgets them', () => {
    let now = Date.UTC(2026, 10, 21, 12, 0, 30);
    const ids = new RecentLogIds(1_000_000, () => now);
    const id = randomUUID();
    ids.add('a', uuidWords(id));
    expect(ids.has('a', uuidWords(id))).to.equal(true);
    expect(ids.has('a', uuidWords(id.toUpperCase())), 'case does not matter').to.equal(true);
    expect(ids.has('b', uuidWords(id)), 'another workspace').to.equal(false);
    now += DEDUP_WINDOW_MS;
    expect(ids.has('a', uuidWords(id)), 'exactly 10 minutes later').to.equal(true);
    now += 2 * 60_000;
    expect(ids.has('a', uuidWords(id))).to.equal(false);
    expect(ids.size).to.equal(0);
  });

  it('looks up and remembers the ids of a batch together, each once', () => {
    const ids = new RecentLogIds(1_000_000);
    const batch = new Int32Array(5 * 4);
    for (let i = 0; i < 5; i++) uuidWords(randomUUID(), batch, i * 4);
    ids.addAll('w', batch, [0, 2, 4], Date.now());
    ids.addAll('w', batch, [2, 4], Date.now());
    expect(ids.size).to.equal(3);
    const remembered = ids.of('w');
    expect([0, 1, 2, 3, 4].map((i) => remembered.has(batch, i * 4))).to.deep.equal([true, false, true, false, true]);
    expect([0, 1, 2, 3, 4].map((i) => ids.of('other').has(batch, i * 4))).to.deep.equal([false, false, false, false, false]);
  });

  it('holds a million ids exactly, the nil UUID included', () => {
    const ids = new RecentLogIds(10_000_000);
    const kept = Array.from({ length: 1_000_000 }, () => randomUUID());
    for (const id of kept) ids.add('w', uuidWords(id));
    ids.add('w', uuidWords('00000000-0000-0000-0000-000000000000'));
    expect(ids.size).to.equal(1_000_001);
    expect(kept.every((id) => ids.has('w', uuidWords(id)))).to.equal(true);
    expect(ids.has('w', uuidWords('00000000-0000-0000-0000-000000000000'))).to.equal(true);
    expect(Array.from({ length: 100_000 }, () => randomUUID()).some((id) => ids.has('w', uuidWords(id)))).to.equal(false);
  });

  it('shrinks the window instead of growing past its cap, and says so', () => {
    let now = Date.UTC(2026, 10, 21, 12, 0, 0);
    const ids = new RecentLogIds(1000, () => now);
    expect(ids.windowMs()).to.equal(DEDUP_WINDOW_MS);
    for (let minute = 0; minute < 5; minute++) {
      for (let i = 0; i < 400; i++) ids.add('w', uuidWords(randomUUID()));
      now += 60_000;
    }
    expect(ids.size).to.be.at.most(1000);
    expect(ids.windowMs()).to.be.lessThan(DEDUP_WINDOW_MS);
    now += DEDUP_WINDOW_MS + 120_000;
    expect(ids.windowMs()).to.equal(DEDUP_WINDOW_MS);
  });
});
