// Who had the CPUs while a phase ran: the proxy, this bench process (it holds the test API server),
// and everything else on the machine. A timing of the real process is only as good as the machine
// was quiet: the same code gave 1.2-1.4 ms and 10-19 ms p50 at 44k Services, the slow runs while
// other work had the cores (docs/benchmarks.md).
import { readFileSync } from 'node:fs';
import { readProcCpuSeconds, TICKS_PER_SECOND } from './proc-cpu';

/** CPU seconds the whole machine spent busy (every state but idle and iowait), from /proc/stat's first line. */
export function parseMachineBusySeconds(procStat: string): number {
  const fields = procStat.slice(0, procStat.indexOf('\n')).trim().split(/\s+/);
  if (fields[0] !== 'cpu') throw new Error(`/proc/stat does not start with the cpu line: ${fields[0]}`);
  const [user, nice, system, , , irq, softirq, steal] = fields.slice(1, 9).map(Number);
  return (user + nice + system + irq + softirq + (steal || 0)) / TICKS_PER_SECOND;
}

export interface PhaseCpu {
  wallS: number;
  proxyS: number;
  benchS: number;
  /** The machine's busy CPU seconds less the proxy's and the bench's: other processes, and the kernel's own work for none of them. */
  othersS: number;
}

interface Reading { wall: number; machine: number; proxy: number; bench: number }

function read(proxyPid: number): Reading {
  const u = process.cpuUsage();
  return {
    wall: performance.now() / 1000,
    machine: parseMachineBusySeconds(readFileSync('/proc/stat', 'utf8')),
    proxy: readProcCpuSeconds(proxyPid) ?? NaN,
    bench: (u.user + u.system) / 1e6,
  };
}

/** Starts counting; the function it returns reads the counts since. */
export function startPhaseCpu(proxyPid: number): () => PhaseCpu {
  const a = read(proxyPid);
  return () => {
    const b = read(proxyPid);
    const proxyS = b.proxy - a.proxy;
    const benchS = b.bench - a.bench;
    return { wallS: b.wall - a.wall, proxyS, benchS, othersS: Math.max(0, b.machine - a.machine - proxyS - benchS) };
  };
}

/** "others 0.4 CPU-s in 301 s (0.1% of one core); proxy 2.1, bench 3.0" */
export function phaseCpuLine(c: PhaseCpu): string {
  const pct = (s: number) => `${((100 * s) / c.wallS).toFixed(1)}% of one core`;
  return `other processes ${c.othersS.toFixed(1)} CPU-s in ${c.wallS.toFixed(0)} s (${pct(c.othersS)}); the proxy ${c.proxyS.toFixed(1)} (${pct(c.proxyS)}), this bench process with the test API server ${c.benchS.toFixed(1)} (${pct(c.benchS)})`;
}
