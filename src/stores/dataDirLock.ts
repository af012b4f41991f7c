// The embedded engines keep their files under DATA_DIR and must have one process at a time.
// A lock file holding the owner's pid keeps a second `npm start` (or a CLI opening the
// stores directly) away, and a lock left by a crashed process is taken over.
import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';

export class DataDirBusyError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`DATA_DIR ${dataDir} is in use by process ${pid}; stop it first (or use its admin API)`);
    this.name = 'DataDirBusyError';
  }
}

export interface DataDirLock {
  release(): void;
}

export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'alertmon.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          rmSync(file, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) throw new DataDirBusyError(dataDir, owner);
      rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`could not lock ${file}`);
}

export function dataDirOwner(dataDir: string): number | null {
  try {
    const owner = Number(readFileSync(path.join(dataDir, 'alertmon.lock'), 'utf8').trim());
    return Number.isInteger(owner) && owner > 0 && isAlive(owner) ? owner : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
