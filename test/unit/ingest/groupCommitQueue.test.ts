// The queue's own rules, with a recording writer in place of ClickHouse: the end-to-end
// behaviour (503, stored-before-200) is tested against the real engine in overload.test.ts.
import { expect } from 'chai';
import { GroupCommitQueue, QueueFullError } from '../../../src/ingest/groupCommitQueue.js';

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

function recordingQueue(options: { maxPendingRows?: number; maxBatchRows?: number; flushIntervalMs?: number; maxConcurrentFlushes?: number } = {}) {
  const batches: number[][][] = [];
  const releases: (() => void)[] = [];
  let running = 0;
  let maxRunning = 0;
  const queue = new GroupCommitQueue<number>({
    maxPendingRows: options.maxPendingRows ?? 1000,
    maxBatchRows: options.maxBatchRows ?? 1000,
    flushIntervalMs: options.flushIntervalMs ?? 0,
    maxConcurrentFlushes: options.maxConcurrentFlushes ?? 2,
    write: async (batch) => {
      batches.push(batch.map((rows) => [...rows]));
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise<void>((resolve) => releases.push(resolve));
      running--;
    },
  });
  return { queue, batches, release: () => releases.shift()?.(), stats: () => ({ running, maxRunning }) };
}

describe('group commit queue', () => {
  it('refuses at once what does not fit, and queues nothing of it', async () => {
    const { queue, release } = recordingQueue({ maxPendingRows: 10, flushIntervalMs: 1000 });
    const first = queue.enqueue([1, 2, 3, 4, 5, 6]);
    let refused: unknown;
    await queue.enqueue([7, 8, 9, 10, 11]).catch((err: unknown) => (refused = err));
    expect(refused).to.be.instanceOf(QueueFullError);
    expect(queue.pendingRows).to.equal(6);
    const drained = queue.drain();
    await tick();
    release();
    await first;
    await drained;
  });

  it('answers a request only when the insert holding its rows is done', async () => {
    const { queue, batches, release } = recordingQueue({ flushIntervalMs: 20 });
    let answered = false;
    const pending = queue.enqueue([1, 2]).then(() => (answered = true));
    await tick(40);
    expect(batches).to.deep.equal([[[1, 2]]]);
    expect(answered).to.equal(false);
    release();
    await pending;
    expect(answered).to.equal(true);
  });

  it('groups the requests that wait into one insert, up to the batch size', async () => {
    const { queue, batches, release } = recordingQueue({ flushIntervalMs: 30, maxBatchRows: 4, maxConcurrentFlushes: 1 });
    const all = [queue.enqueue([1, 2]), queue.enqueue([3]), queue.enqueue([4]), queue.enqueue([5, 6])];
    await tick();
    expect(batches, 'four rows flush at once, before the interval').to.deep.equal([[[1, 2], [3], [4]]]);
    release();
    await tick(50);
    expect(batches[1]).to.deep.equal([[5, 6]]);
    release();
    await Promise.all(all);
  });

  it('runs at most maxConcurrentFlushes inserts at once', async () => {
    const { queue, release, stats } = recordingQueue({ maxBatchRows: 1, maxConcurrentFlushes: 2 });
    const all = [1, 2, 3, 4, 5].map((n) => queue.enqueue([n]));
    await tick();
    expect(stats().running).to.equal(2);
    for (let i = 0; i < 5; i++) {
      release();
      await tick();
    }
    await Promise.all(all);
    expect(stats().maxRunning).to.equal(2);
  });

  it('rejects every request of a failed insert', async () => {
    const queue = new GroupCommitQueue<number>({
      maxPendingRows: 100,
      maxBatchRows: 100,
      flushIntervalMs: 10,
      maxConcurrentFlushes: 1,
      write: async () => {
        throw new Error('disk full');
      },
    });
    const results = await Promise.allSettled([queue.enqueue([1]), queue.enqueue([2])]);
    expect(results.map((r) => r.status)).to.deep.equal(['rejected', 'rejected']);
    expect(queue.pendingRows).to.equal(0);
  });

  it('runs exclusive work between inserts, and holds new inserts until it is done', async () => {
    const { queue, batches, release, stats } = recordingQueue({ maxBatchRows: 1 });
    const first = queue.enqueue([1]);
    await tick();
    let exclusiveSawRunning = -1;
    let finishExclusive!: () => void;
    const exclusive = queue.runExclusive(async () => {
      exclusiveSawRunning = stats().running;
      await new Promise<void>((resolve) => (finishExclusive = resolve));
    });
    const second = queue.enqueue([2]);
    await tick();
    expect(exclusiveSawRunning, 'waits for the running insert').to.equal(-1);
    release();
    await first;
    await tick();
    expect(exclusiveSawRunning).to.equal(0);
    expect(batches).to.have.length(1);
    finishExclusive();
    await exclusive;
    await tick();
    expect(batches).to.have.length(2);
    release();
    await second;
  });
});

describe('group commit queue: a failure tied to one request', () => {
  class BadRows extends Error {}

  function failingQueue(isolate: boolean) {
    const writes: number[][][] = [];
    const queue = new GroupCommitQueue<number>({
      maxPendingRows: 1000,
      maxBatchRows: 1000,
      flushIntervalMs: 20,
      maxConcurrentFlushes: 1,
      // A negative row is one the store refuses: the whole write fails while it is in it.
      write: async (batch) => {
        writes.push(batch.map((rows) => [...rows]));
        if (batch.some((rows) => rows.some((r) => r < 0))) throw isolate ? new BadRows() : new Error('store down');
      },
      isolates: (err) => err instanceof BadRows,
    });
    return { queue, writes };
  }

  it('splits the batch until the request holding the bad rows is alone, and stores the others', async () => {
    const { queue, writes } = failingQueue(true);
    const outcomes = await Promise.allSettled([[1, 2], [3], [-4, 5], [6], [7, 8]].map((rows) => queue.enqueue(rows)));
    expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason).to.be.instanceOf(BadRows);
    const stored = writes.filter((w) => !w.flat().some((r) => r < 0)).flat(2);
    expect(stored.sort((a, b) => a - b)).to.deep.equal([1, 2, 3, 6, 7, 8].sort((a, b) => a - b));
  });

  it('fails every request of the batch when the failure is not tied to rows', async () => {
    const { queue } = failingQueue(false);
    const outcomes = await Promise.allSettled([[1], [-2], [3]].map((rows) => queue.enqueue(rows)));
    expect(outcomes.map((o) => o.status)).to.deep.equal(['rejected', 'rejected', 'rejected']);
  });
});
