// DATA_DIR belongs to one process at a time, through a lock the kernel drops when its holder
// dies (issue 7): a start right after kill -9 succeeds, a stale pid in the lock file means
// nothing, and a second live process is still refused with a message that names the holder.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../../src/paths.js';
import { DataDirBusyError, dataDirOwner, lockDataDir } from '../../../src/stores/dataDirLock.js';
import { startServiceProcess, type ServiceProcess } from '../../../scripts/lib/serviceProcess.js';
import { describeInEmbeddedRunOnly, freshProcessEnv, testRoot } from '../../helpers/stores.js';

const freshDir = () => mkdtempSync(path.join(testRoot, 'lock-'));

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected the lock to be refused'),
    (err: unknown) => err,
  );
}

/** A child process that holds dir's lock until it is killed. */
async function holder(dir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/holdDataDir.ts', dir], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  expect(chunk.toString()).to.equal('locked\n');
  return child;
}

describeInEmbeddedRunOnly('data directory lock', function () {
  this.timeout(600_000);

  it('refuses a second owner while the first holds it, then lets the next one in', async () => {
    const dir = freshDir();
    const lock = await lockDataDir(dir);
    const err = await rejection(lockDataDir(dir, { waitMs: 200 }));
    expect(err).to.be.instanceOf(DataDirBusyError);
    expect((err as Error).message).to.include(`in use by process ${process.pid}`);
    lock.release();
    (await lockDataDir(dir, { waitMs: 0 })).release();
  });

  it('is not blocked by a lock file naming a live process that does not hold the lock', async () => {
    const dir = freshDir();
    // The parent of this process is alive, and is not an alertmon holding DATA_DIR.
    writeFileSync(path.join(dir, 'alertmon.lock'), String(process.ppid));
    expect(dataDirOwner(dir)).to.equal(null);
    (await lockDataDir(dir, { waitMs: 0 })).release();
  });

  it('is refused to a second process while the first lives, and free the moment it is killed, ten times in a row', async () => {
    for (let round = 0; round < 10; round++) {
      const dir = freshDir();
      const child = await holder(dir);
      try {
        expect(dataDirOwner(dir)).to.deep.equal({ pid: child.pid });
        const err = await rejection(lockDataDir(dir, { waitMs: 100 }));
        expect((err as Error).message).to.include(`in use by process ${child.pid}`);
      } finally {
        child.kill('SIGKILL');
      }
      // At once, without waiting for its exit: the lock waits (bounded) for the kernel to drop it.
      (await lockDataDir(dir)).release();
    }
  });

  it('lets the service start at once after kill -9, ten times in a row', async () => {
    const env = await freshProcessEnv();
    let svc: ServiceProcess = await startServiceProcess({ env });
    const pids: number[] = [];
    try {
      for (let round = 0; round < 10; round++) {
        pids.push(svc.child.pid!);
        svc.child.kill('SIGKILL');
        svc = await startServiceProcess({ env });
        const health = await fetch(`${svc.url}/healthz`);
        expect(health.status, `round ${round}`).to.equal(200);
      }
      expect(new Set(pids).size).to.equal(10);
    } finally {
      await svc.kill();
    }
  });

  it('refuses a second live service on the same DATA_DIR with a clear message', async () => {
    const env = await freshProcessEnv();
    const first = await startServiceProcess({ env });
    try {
      const err = await startServiceProcess({ env }).then(
        async (second) => {
          await second.kill();
          return null;
        },
        (e: Error) => e,
      );
      expect(err?.message).to.include(`is in use by process ${first.child.pid}`);
      expect(err?.message).to.include('one alertmon process at a time');
    } finally {
      await first.kill();
    }
  });
});
