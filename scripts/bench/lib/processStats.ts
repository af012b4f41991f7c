// Memory and CPU time of a process, read from /proc/<pid> (Linux): all its threads, ClickHouse's
// included where it runs in-process.
import { readFileSync } from 'node:fs';

/** The kernel's clock ticks a second for /proc's CPU times (USER_HZ), 100 on Linux. */
const TICKS_PER_SECOND = 100;

/** /proc/<pid>/<file>, or null when it cannot be read (no such process, or not Linux). */
function readProcFile(pid: number, file: string): string | null {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return null;
  }
}

export interface ProcessMemory {
  /** Resident set size now, in bytes. */
  readonly rss: number;
  /** Highest resident set size since the process started (VmHWM), in bytes. */
  readonly highWaterMark: number;
}

export function readProcessMemory(pid: number): ProcessMemory | null {
  const status = readProcFile(pid, 'status');
  if (status === null) return null;
  const kibibytes = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kibibytes('VmRSS'), highWaterMark: kibibytes('VmHWM') };
}

/** VmRSS in bytes when sampling began, and the highest seen; null when it could not be read. */
export interface RssSamples {
  readonly first: number | null;
  readonly peak: number | null;
}

export interface RssSampler {
  stop(): RssSamples;
}

export function sampleRss(pid: number, everyMs: number): RssSampler {
  let first: number | null = null;
  let peak: number | null = null;
  const sample = () => {
    const rss = readProcessMemory(pid)?.rss;
    if (rss === undefined || !Number.isFinite(rss)) return;
    first ??= rss;
    if (peak === null || rss > peak) peak = rss;
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { first, peak };
    },
  };
}

/** User and system CPU seconds of the process so far. */
export function processCpuSeconds(pid: number): number | null {
  const stat = readProcFile(pid, 'stat');
  if (stat === null) return null;
  // Fields after the command name (which may hold spaces) in parentheses; utime and stime are the 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** This process's CPU seconds since `since` (process.cpuUsage()). */
export function ownCpuSeconds(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
}
