// Conntrack sysctls from KubeProxyConfiguration.conntrack, as upstream kube-proxy applies them
// (cmd/kube-proxy/app/server_linux.go, conntrack.go):
// - nf_conntrack_max = max(min, maxPerCore x CPUs), only when maxPerCore > 0, and only raised:
//   the table is never shrunk under live traffic. Then the hash table
//   (/sys/module/nf_conntrack/parameters/hashsize) is raised to max/4 if it is smaller.
//   Both are global and writable only from the initial network namespace.
// - TCP established / close-wait timeouts, UDP timeouts (when > 0) and tcp_be_liberal (when
//   true) are per network namespace and written whenever they differ.
// A value that cannot be written (read-only /proc/sys or /sys in a container, or the global
// ones from inside a netns) is reported and the rest still applied: upstream carries on too.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ConntrackConfig } from '../config/types';

export interface SysctlWrite {
  /** Path under the root, e.g. net/netfilter/nf_conntrack_max. */
  name: string;
  value: number;
  /** Write only when the current value is smaller. */
  raiseOnly: boolean;
  root: 'proc' | 'sys';
}

export type SysctlAction = 'set' | 'unchanged' | 'failed';

export interface SysctlOutcome {
  name: string;
  value: number;
  previous?: number;
  action: SysctlAction;
  error?: string;
}

export interface SysctlOptions {
  /** Default /proc/sys. */
  procRoot?: string;
  /** Default /sys. */
  sysRoot?: string;
  /** Default: os.availableParallelism(). */
  cpus?: number;
}

const NF = 'net/netfilter/';
export const HASHSIZE = 'module/nf_conntrack/parameters/hashsize';

/** Config durations are milliseconds; sysctls take whole seconds. */
function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/** upstream getConntrackMax: 0 = leave nf_conntrack_max alone. */
export function conntrackMax(config: Pick<ConntrackConfig, 'maxPerCore' | 'min'>, cpus: number): number {
  if (!(config.maxPerCore > 0)) return 0;
  return Math.max(config.min > 0 ? config.min : 0, config.maxPerCore * cpus);
}

/** The writes the config asks for (pure). */
export function planConntrackSysctls(config: ConntrackConfig, cpus: number): SysctlWrite[] {
  const out: SysctlWrite[] = [];
  const max = conntrackMax(config, cpus);
  if (max > 0) {
    out.push({ name: `${NF}nf_conntrack_max`, value: max, raiseOnly: true, root: 'proc' });
    out.push({ name: HASHSIZE, value: Math.floor(max / 4), raiseOnly: true, root: 'sys' });
  }
  const timeouts: Array<[string, number]> = [
    ['nf_conntrack_tcp_timeout_established', config.tcpEstablishedTimeout],
    ['nf_conntrack_tcp_timeout_close_wait', config.tcpCloseWaitTimeout],
    ['nf_conntrack_udp_timeout', config.udpTimeout],
    ['nf_conntrack_udp_timeout_stream', config.udpStreamTimeout],
  ];
  for (const [name, ms] of timeouts) {
    if (seconds(ms) > 0) out.push({ name: NF + name, value: seconds(ms), raiseOnly: false, root: 'proc' });
  }
  if (config.tcpBeLiberal) out.push({ name: `${NF}nf_conntrack_tcp_be_liberal`, value: 1, raiseOnly: false, root: 'proc' });
  return out;
}

function readInt(file: string): number | undefined {
  try {
    const n = Number.parseInt(fs.readFileSync(file, 'utf8').trim(), 10);
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

function applyOne(w: SysctlWrite, file: string): SysctlOutcome {
  const previous = readInt(file);
  const base = { name: w.name, value: w.value, ...(previous === undefined ? {} : { previous }) };
  const needed = previous === undefined || (w.raiseOnly ? previous < w.value : previous !== w.value);
  if (!needed) return { ...base, action: 'unchanged' };
  try {
    fs.writeFileSync(file, `${w.value}\n`);
    return { ...base, action: 'set' };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return { ...base, action: 'failed', error: `cannot write ${file}: ${err.code ?? ''} ${err.message}`.trim() };
  }
}

/** Applies the plan; never throws for a value it cannot write (see each outcome). */
export function applyConntrackSysctls(config: ConntrackConfig, opts: SysctlOptions = {}): SysctlOutcome[] {
  const procRoot = opts.procRoot ?? '/proc/sys';
  const sysRoot = opts.sysRoot ?? '/sys';
  const cpus = opts.cpus ?? os.availableParallelism();
  const outcomes: SysctlOutcome[] = [];
  for (const w of planConntrackSysctls(config, cpus)) {
    // Upstream sizes the hash table only once nf_conntrack_max itself was accepted.
    if (w.name === HASHSIZE && outcomes.some((o) => o.name.endsWith('nf_conntrack_max') && o.action === 'failed')) continue;
    outcomes.push(applyOne(w, path.join(w.root === 'proc' ? procRoot : sysRoot, w.name)));
  }
  return outcomes;
}
