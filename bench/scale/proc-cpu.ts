// A process's CPU time as the kernel counts it (/proc/PID/stat utime + stime), read from outside.
import { readFileSync } from 'node:fs';

/** Linux's USER_HZ, the unit of utime and stime: 100 on every architecture Node runs on. */
export const TICKS_PER_SECOND = 100;

/** User + system CPU seconds of `pid`, or undefined once it is gone. */
export function readProcCpuSeconds(pid: number): number | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

export function parseProcStat(text: string): number {
  // The command name (field 2) may hold spaces and parentheses: count fields after its closing ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}
