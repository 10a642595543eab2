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
import * as os from 'node:os';
import { applySysctl, type SysctlOutcome, type SysctlRoots, type SysctlWrite } from '../base/sysctl';
import type { ConntrackConfig } from '../config/types';

export type { SysctlAction, SysctlOutcome, SysctlWrite } from '../base/sysctl';

export interface SysctlOptions extends SysctlRoots {
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

/** Applies the plan; never throws for a value it cannot write (see each outcome). */
export function applyConntrackSysctls(config: ConntrackConfig, opts: SysctlOptions = {}): SysctlOutcome[] {
  const cpus = opts.cpus ?? os.availableParallelism();
  const outcomes: SysctlOutcome[] = [];
  for (const w of planConntrackSysctls(config, cpus)) {
    // Upstream sizes the hash table only once nf_conntrack_max itself was accepted.
    if (w.name === HASHSIZE && outcomes.some((o) => o.name.endsWith('nf_conntrack_max') && o.action === 'failed')) continue;
    outcomes.push(applySysctl(w, opts));
  }
  return outcomes;
}
