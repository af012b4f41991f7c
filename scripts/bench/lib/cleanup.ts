// Everything the benchmark leaves behind (a service process, temporary folders) is registered
// here and undone once, whether the run ends normally, fails, or is interrupted.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

type Task = () => Promise<void> | void;

const tasks: Task[] = [];
/** Last-resort undo that must run synchronously, from the 'exit' event. */
const onExitTasks: (() => void)[] = [];

export function onCleanup(task: Task, onExit?: () => void): void {
  tasks.push(task);
  if (onExit) onExitTasks.push(onExit);
}

let cleaning: Promise<void> | null = null;

/** Runs the registered tasks once, newest first; a failing task does not stop the others. */
export function runCleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const task of tasks.splice(0).reverse()) {
      try {
        await task();
      } catch (err) {
        process.stderr.write(`cleanup: ${err instanceof Error ? err.message : String(err)}\n`);
      }
    }
  })();
  return cleaning;
}

export function installInterruptHandlers(): void {
  let interrupted = false;
  // Kept installed after the first signal: a runner such as tsx may relay the same Ctrl-C
  // again, and with no listener left Node would exit before the cleanup is done.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (interrupted) return;
      interrupted = true;
      process.stderr.write(`\n${signal}: stopping the service and removing temporary files…\n`);
      void runCleanup().finally(() => process.exit(130));
    });
  }
  process.once('exit', () => {
    for (const undo of onExitTasks.splice(0)) {
      try {
        undo();
      } catch {
        // best effort: the process is ending
      }
    }
  });
}

/** A new empty folder under the system's temporary folder, removed on cleanup. */
export function temporaryDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  onCleanup(remove, remove);
  return dir;
}
