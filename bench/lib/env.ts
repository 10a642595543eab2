// What the numbers were measured on, saved beside them.
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, release } from 'node:os';

export interface BenchEnv { kernel: string; cpus: number; cpuModel: string; node: string; nft: string; loadavg1m: number; date: string }

export function benchEnv(): BenchEnv {
  let nft = 'unknown';
  try { nft = execFileSync('nft', ['--version'], { encoding: 'utf8' }).trim(); } catch { /* reported as unknown */ }
  return {
    kernel: release(), cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown',
    node: process.version, nft, loadavg1m: loadavg()[0], date: new Date().toISOString(),
  };
}

export function envLine(e: BenchEnv): string {
  return `kernel ${e.kernel}, ${e.cpus} CPUs (${e.cpuModel}), node ${e.node}, ${e.nft}, load average at start ${e.loadavg1m.toFixed(2)}`;
}
