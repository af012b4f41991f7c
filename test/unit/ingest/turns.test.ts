import { expect } from 'chai';
import { Turns } from '../../../src/ingest/turns.js';

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('turns', () => {
  it('run work in arrival order, with results and errors, and let the event loop in between turns', async () => {
    const turns = new Turns(5);
    const order: string[] = [];
    const work = Array.from({ length: 20 }, (_, i) =>
      turns.run(() => {
        busy(2);
        order.push(`work ${i}`);
        if (i === 7) throw new Error('seven');
        return i * 10;
      }),
    );
    // Queued after all the work: it runs once the first turn (about 5 ms of it) is over.
    setImmediate(() => order.push('other callback'));
    const results = await Promise.allSettled(work);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).to.deep.equal(
      Array.from({ length: 20 }, (_, i) => (i === 7 ? 'seven' : i * 10)),
    );
    const other = order.indexOf('other callback');
    expect(other, order.join(', ')).to.be.within(1, 6);
    expect(order.filter((o) => o !== 'other callback')).to.deep.equal(Array.from({ length: 20 }, (_, i) => `work ${i}`));
  });
});
