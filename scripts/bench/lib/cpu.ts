// CPU time of a process, read from /proc/<pid>/stat (Linux): user and system time of all its
// threads, ClickHouse's included where it runs in-process.
import { readFileSync } from 'node:fs';

/** The kernel's clock ticks a second for these fields (USER_HZ), 100 on Linux. */
const TICKS_PER_SECOND = 100;

export function processCpuSeconds(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Fields after the command name (which may hold spaces) in parentheses; utime and stime are the 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** This process's CPU seconds since `since` (process.cpuUsage()). */
export function ownCpuSeconds(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
}
