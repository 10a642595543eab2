// The proxy's memory as the kernel counts it, read from outside: VmRSS (now) and VmHWM (the peak of
// RSS since the process started, kept by the kernel, so no spike between samples is missed) from
// /proc/PID/status, sampled every ~100 ms; and the JS heap from the process's own /metrics.
import { readFileSync } from 'node:fs';

export interface ProcMemory { rssKiB: number; hwmKiB: number }
export interface MemSample extends ProcMemory { tMs: number }

/** VmRSS and VmHWM of `pid`, or undefined once the process is gone. */
export function readProcMemory(pid: number): ProcMemory | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  return parseProcStatus(text);
}

export function parseProcStatus(text: string): ProcMemory | undefined {
  const kib = (field: string) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(text);
    return m ? Number(m[1]) : undefined;
  };
  const rssKiB = kib('VmRSS');
  const hwmKiB = kib('VmHWM');
  return rssKiB === undefined || hwmKiB === undefined ? undefined : { rssKiB, hwmKiB };
}

export class MemorySampler {
  readonly samples: MemSample[] = [];
  private timer?: NodeJS.Timeout;

  constructor(private readonly pid: number, private readonly t0Ms: number, private readonly intervalMs = 100) {}

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Reads now (also recorded); undefined once the process is gone. */
  sample(): MemSample | undefined {
    const m = readProcMemory(this.pid);
    if (!m) return undefined;
    const s = { tMs: performance.now() - this.t0Ms, ...m };
    this.samples.push(s);
    return s;
  }

  /** The highest VmHWM seen: the process's peak RSS so far. */
  peakKiB(): number {
    return this.samples.reduce((m, s) => Math.max(m, s.hwmKiB), 0);
  }

  /** One sample per `everyMs` (the last of each bucket), for the result file. */
  timeline(everyMs = 1000): MemSample[] {
    const out = new Map<number, MemSample>();
    for (const s of this.samples) out.set(Math.floor(s.tMs / everyMs), s);
    return [...out.values()];
  }
}
