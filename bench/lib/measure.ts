// Wall and CPU time of the two ways a ruleset reaches the kernel. Netlink's kernel work runs in the
// sending process's context, so the kernel's share shows up as that process's system time: our own
// for the addon, the `nft` child's for `nft -f`.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Cost {
  wallS: number;
  userS: number;
  sysS: number;
  /** Peak RSS in MiB (the child's for nft -f; this process's for the addon). */
  maxRssMiB?: number;
}

export const cpuS = (c: Cost): number => c.userS + c.sysS;

export async function measureInProcess<T>(fn: () => Promise<T> | T): Promise<{ cost: Cost; value: T }> {
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const value = await fn();
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  return {
    value,
    cost: { wallS, userS: cpu.user / 1e6, sysS: cpu.system / 1e6, maxRssMiB: process.resourceUsage().maxRSS / 1024 },
  };
}

const GNU_TIME = '/usr/bin/time';

/** GNU time reports a child's rusage; install Debian's `time` package when it is missing. */
export function ensureGnuTime(): void {
  if (existsSync(GNU_TIME)) return;
  process.stderr.write('bench: installing Debian package `time` for child rusage\n');
  execFileSync('apt-get', ['install', '-y', '-q', 'time'], { stdio: 'inherit' });
  if (!existsSync(GNU_TIME)) throw new Error(`${GNU_TIME} still missing after apt-get install time`);
}

/** Runs `nft -f file` inside the namespace; CPU from the nft process's own rusage. */
export function measureNftFile(netnsName: string, file: string, timeoutS = 900): Cost {
  ensureGnuTime();
  const dir = mkdtempSync(join(tmpdir(), 'kpn-bench-time-'));
  const out = join(dir, 'rusage');
  try {
    const t0 = process.hrtime.bigint();
    const r = spawnSync('ip', ['netns', 'exec', netnsName, GNU_TIME, '-f', '%e %U %S %M', '-o', out, 'nft', '-f', file], {
      encoding: 'utf8', timeout: timeoutS * 1000, maxBuffer: 1 << 26,
    });
    const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.error) throw new Error(`nft -f ${file} in netns ${netnsName}: ${r.error.message}`);
    if (r.status !== 0) throw new Error(`nft -f ${file} in netns ${netnsName} exited ${r.status}: ${r.stderr.slice(0, 2000)}`);
    const fields = readFileSync(out, 'utf8').trim().split('\n').pop()!.split(/\s+/).map(Number);
    const [, userS, sysS, maxRssKiB] = fields;
    return { wallS, userS, sysS, maxRssMiB: maxRssKiB / 1024 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
