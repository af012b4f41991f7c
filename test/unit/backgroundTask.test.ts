import { expect } from 'chai';
import { periodicTask } from '../../src/backgroundTask.js';
import { capturingLogger } from '../helpers/logCapture.js';
import { waitFor } from '../helpers/waitFor.js';

/** A promise and the function that settles it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Lets `n` timer turns pass (each at least one millisecond): enough for a 1 ms task to run many times if it still ran. */
async function timerTurns(n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) await new Promise((r) => setTimeout(r, 1));
}

/** A task whose runs are counted, each run doing `work(n)` (n from 1). */
function countingTask(work: (n: number) => Promise<void> = async () => {}, stopWaitMs?: number) {
  const { logger, lines } = capturingLogger();
  let runs = 0;
  let inRun = 0;
  let overlapped = false;
  const task = periodicTask({
    name: 'counting',
    intervalMs: 1,
    firstRunAfterMs: 0,
    logger,
    failureMessage: 'counting run failed',
    stopWaitMs,
    async run() {
      runs += 1;
      inRun += 1;
      if (inRun > 1) overlapped = true;
      try {
        await work(runs);
      } finally {
        inRun -= 1;
      }
    },
  });
  return { task, lines, runs: () => runs, overlapped: () => overlapped };
}

describe('periodicTask', () => {
  it('runs again and again, never two runs at once', async () => {
    const t = countingTask(() => timerTurns(2));
    t.task.start();
    t.task.start(); // a second start changes nothing
    await waitFor('five runs', async () => (t.runs() >= 5 ? true : null));
    await t.task.stop();
    expect(t.overlapped()).to.equal(false);
  });

  it('logs a failed run and goes on with the next', async () => {
    const t = countingTask(async (n) => {
      if (n === 1) throw new Error('store away');
    });
    t.task.start();
    await waitFor('runs after the failure', async () => (t.runs() >= 3 ? true : null));
    await t.task.stop();
    const failures = t.lines.filter((l) => l.includes('counting run failed'));
    expect(failures).to.have.length(1);
    expect(failures[0]).to.include('store away');
  });

  it('stop() waits for the run in progress, and no run starts after it', async () => {
    const release = deferred();
    const t = countingTask(async (n) => {
      if (n === 2) await release.promise;
    });
    t.task.start();
    await waitFor('the second run under way', async () => (t.runs() >= 2 ? true : null));
    let stopped = false;
    const stopping = t.task.stop().then(() => {
      stopped = true;
    });
    await timerTurns(5);
    expect(stopped, 'stop() returned while a run was in progress').to.equal(false);
    release.resolve();
    await stopping;
    const runsAtStop = t.runs();
    await timerTurns(20);
    expect(t.runs()).to.equal(runsAtStop);
    expect(runsAtStop).to.equal(2);
  });

  it('stop() before the first run lets none start', async () => {
    const { logger } = capturingLogger();
    let runs = 0;
    const task = periodicTask({
      name: 'never',
      intervalMs: 1,
      logger,
      failureMessage: 'never failed',
      run: async () => {
        runs += 1;
      },
    });
    task.start();
    await task.stop();
    await timerTurns(20);
    task.start(); // a stopped task stays stopped
    await timerTurns(20);
    expect(runs).to.equal(0);
  });

  it('stop() gives up on a run that never ends, after its bound, and says so', async () => {
    const never = deferred();
    const t = countingTask(() => never.promise, 20);
    t.task.start();
    await waitFor('the run under way', async () => (t.runs() >= 1 ? true : null));
    await t.task.stop();
    expect(t.lines.some((l) => l.includes('counting stopped before its run finished'))).to.equal(true);
    never.resolve();
    await timerTurns(20);
    expect(t.runs()).to.equal(1);
  });
});
