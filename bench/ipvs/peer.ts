// The peer of the IPVS bench: `ipvsadm --restore` of the same virtual services and real servers
// (masquerading, weight 1, rr) into a fresh namespace, and `ip -batch` of the kube-ipvs0 link and
// its addresses, each timed as the process it is: wall around `nsenter --net` (only a setns; `ip netns exec`
// also makes a mount namespace and remounts /sys), CPU from GNU time.
// The one-Service change replays ours: the old real server to weight 0, the new one added, and the
// previous change's drained server deleted, as the proxier's graceful termination does.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SynthService } from '../lib/cluster';
import type { TestNetns } from '../lib/netns';
import { NODE_IP, type EndpointSwap } from './snapshot';

export interface ProcTiming { wallMs: number; cpuMs?: number }

/** A Service's virtual services: its ClusterIP, and its NodePort on the node's address. */
function virtualServices(s: SynthService): string[] {
  const vs = [`${s.clusterIP}:${s.port}`];
  if (s.nodePort) vs.push(`${NODE_IP}:${s.nodePort}`);
  return vs;
}

export function restoreText(services: readonly SynthService[]): string {
  const lines: string[] = [];
  for (const s of services) {
    for (const vs of virtualServices(s)) {
      lines.push(`-A -t ${vs} -s rr`);
      for (const e of s.endpoints) lines.push(`-a -t ${vs} -r ${e.ip}:${e.port} -m -w 1`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export function addressBatch(services: readonly SynthService[]): string {
  const lines = ['link add kube-ipvs0 type dummy'];
  for (const s of services) lines.push(`address add ${s.clusterIP}/32 dev kube-ipvs0`);
  return `${lines.join('\n')}\n`;
}

/** The restore lines of one change; `previous` is the change before it, whose old server drained. */
export function changeText(swap: EndpointSwap, previous: EndpointSwap | undefined): string {
  const lines: string[] = [];
  if (previous) for (const vs of virtualServices(previous.service)) lines.push(`-d -t ${vs} -r ${previous.oldIp}:${previous.port}`);
  for (const vs of virtualServices(swap.service)) {
    lines.push(`-e -t ${vs} -r ${swap.oldIp}:${swap.port} -m -w 0`);
    lines.push(`-a -t ${vs} -r ${swap.newIp}:${swap.port} -m -w 1`);
  }
  return `${lines.join('\n')}\n`;
}

/** Runs `cmd args` in the namespace with `stdinFile` as its input; wall around the whole spawn. */
export function timedInNetns(ns: TestNetns, cmd: string, args: string[], stdinFile?: string): ProcTiming {
  const dir = mkdtempSync(join(tmpdir(), 'kpn-ipvs-peer-'));
  const rusage = join(dir, 'rusage');
  const fd = stdinFile ? openSync(stdinFile, 'r') : 'ignore';
  try {
    const t0 = performance.now();
    const r = spawnSync('nsenter', [`--net=${ns.path}`, '/usr/bin/time', '-f', '%U %S', '-o', rusage, cmd, ...args], {
      stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 1 << 26, timeout: 600_000,
    });
    const wallMs = performance.now() - t0;
    if (r.error) throw new Error(`${cmd} ${args.join(' ')} in ${ns.name}: ${r.error.message}`);
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} in ${ns.name} exited ${r.status}: ${r.stderr.slice(0, 2000)}`);
    const [user, sys] = spawnSync('tail', ['-n1', rusage], { encoding: 'utf8' }).stdout.trim().split(/\s+/).map(Number);
    return { wallMs, cpuMs: Number.isFinite(user + sys) ? (user + sys) * 1000 : undefined };
  } finally {
    if (typeof fd === 'number') closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Writes `text` to a temporary file for `use`, then removes it. */
export function withTextFile<T>(text: string, use: (file: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'kpn-ipvs-text-'));
  const file = join(dir, 'in.txt');
  try {
    writeFileSync(file, text);
    return use(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
