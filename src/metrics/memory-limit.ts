// kubeproxy_native_memory_limit_bytes: the memory limit of the proxy's own cgroup (its container's
// `resources.limits.memory`), read on each scrape, so that an alert can compare
// process_resident_memory_bytes with it without joining cAdvisor's container series (which carry
// other labels, and are not scraped everywhere). Absent when there is no limit or it cannot be read:
// an alert on a ratio then has nothing to divide by and stays quiet rather than guessing.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Gauge, Registry } from 'prom-client';
import { optionalGauge } from './optional-figure';

/** cgroup v1 writes "no limit" as a page-rounded 2^63-1; anything this large is no limit. */
const UNLIMITED_V1 = 2 ** 60;

function readNumber(file: string): number | undefined {
  let text: string;
  try { text = fs.readFileSync(file, 'utf8').trim(); } catch { return undefined; }
  if (text === 'max') return undefined; // cgroup v2's "no limit"
  const n = Number(text);
  return Number.isFinite(n) && n > 0 && n < UNLIMITED_V1 ? n : undefined;
}

/**
 * The memory limit in bytes of the cgroup this process is in, or undefined. `root` is where `/` is
 * (tests point it at a directory laid out like /proc and /sys). cgroup v2 (`0::/path`,
 * `memory.max`) first, then v1's memory controller (`N:memory:/path`, `memory.limit_in_bytes`).
 * The path in /proc/self/cgroup is relative to the hierarchy's root as the host sees it; a container
 * without a cgroup namespace has its own cgroup mounted as the root, so the mount's root is tried too.
 */
export function readCgroupMemoryLimit(root = '/'): number | undefined {
  let lines: string[];
  try { lines = fs.readFileSync(path.join(root, 'proc/self/cgroup'), 'utf8').split('\n'); } catch { return undefined; }
  for (const line of lines) {
    const [, controllers, cgPath] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (cgPath === undefined) continue;
    const candidates: string[] = [];
    if (controllers === '') candidates.push('sys/fs/cgroup', 'sys/fs/cgroup/unified');
    else if (controllers.split(',').includes('memory')) candidates.push('sys/fs/cgroup/memory');
    else continue;
    const file = controllers === '' ? 'memory.max' : 'memory.limit_in_bytes';
    for (const mount of candidates) {
      for (const dir of [path.join(root, mount, cgPath), path.join(root, mount)]) {
        const v = readNumber(path.join(dir, file));
        if (v !== undefined) return v;
      }
    }
  }
  return undefined;
}

/** Registers the gauge; `read` is injectable for tests. A scrape without a limit leaves it out (optional-figure.ts). */
export function registerMemoryLimit(register: Registry, read: () => number | undefined = readCgroupMemoryLimit): Gauge {
  return optionalGauge('kubeproxy_native_memory_limit_bytes',
    'Memory limit of the proxy\'s cgroup (its container\'s limit), read on each scrape; absent when unlimited', [register], async () => read());
}
