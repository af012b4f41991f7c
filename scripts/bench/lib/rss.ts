// Memory of the service process, read from /proc/<pid>/status (Linux).
import { readFileSync } from 'node:fs';

export interface ProcessMemory {
  /** Resident set size now, in bytes. */
  readonly rss: number;
  /** Highest resident set size since the process started (VmHWM), in bytes. */
  readonly highWaterMark: number;
}

export function readProcessMemory(pid: number): ProcessMemory | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
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
