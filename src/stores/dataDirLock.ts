// The embedded engines keep their files under DATA_DIR and must have one process at a time.
//
// The lock is a kernel lock on DATA_DIR/alertmon.lock (an open-file-description lock,
// fcntl F_OFD_SETLK on Linux, flock on macOS, through fs-native-extensions), not the file's
// existence: the kernel drops it when its holder exits, however it exits, so a crash never
// leaves a stale lock, and a pid in the file that now belongs to another process means
// nothing. The pid written into the file only names the holder in messages. A holder that
// was just killed may take a moment to exit (its memory is torn down first), so a start
// waits a bounded time for the lock before it gives up.
import { mkdirSync, openSync, closeSync, ftruncateSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import fsx from 'fs-native-extensions';

/** How long a start waits for a holder that is exiting (kill -9 of a large process). */
export const DATA_DIR_LOCK_WAIT_MS = 10_000;
const POLL_MS = 50;

export class DataDirBusyError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number | null,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by ${pid === null ? 'another process' : `process ${pid}`}: ` +
        'one alertmon process at a time may use the embedded stores; stop it first (or use its admin API)',
    );
    this.name = 'DataDirBusyError';
  }
}

export interface DataDirLock {
  release(): void;
}

const lockFile = (dataDir: string) => path.join(dataDir, 'alertmon.lock');

function holderPid(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Takes DATA_DIR for this process, waiting up to waitMs for an exiting holder to let go. */
export async function lockDataDir(dataDir: string, { waitMs = DATA_DIR_LOCK_WAIT_MS } = {}): Promise<DataDirLock> {
  mkdirSync(dataDir, { recursive: true });
  const file = lockFile(dataDir);
  // 'a': created if missing, never truncated before the lock is ours.
  const fd = openSync(file, 'a');
  const deadline = Date.now() + waitMs;
  while (!fsx.tryLock(fd)) {
    if (Date.now() >= deadline) {
      closeSync(fd);
      throw new DataDirBusyError(dataDir, holderPid(file));
    }
    await sleep(POLL_MS);
  }
  ftruncateSync(fd, 0);
  writeSync(fd, String(process.pid));
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      // Closing the descriptor drops the lock; the file stays, so that every process locks
      // the same file (removing it would let two processes lock two different files).
      fsx.unlock(fd);
      closeSync(fd);
    },
  };
}

/** The process holding DATA_DIR (its pid when known), or null when no process holds it. */
export function dataDirOwner(dataDir: string): { pid: number | null } | null {
  const file = lockFile(dataDir);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    if (fsx.tryLock(fd, { shared: true })) return null;
    return { pid: holderPid(file) };
  } finally {
    closeSync(fd); // also drops the shared lock, if it was taken
  }
}
