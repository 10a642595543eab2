// Whether the kernel's nf_conntrack_tcp_be_liberal is set, read once at start-up after the conntrack
// sysctls are applied, as upstream's NewProxier reads it (iptables, ipvs, nftables): set, the proxy
// installs no rule dropping INVALID packets. Upstream reads the kernel, not the config: a node whose
// sysctl was set by hand counts too. An unreadable value counts as unset (the rule is installed).
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { parseSysctlInt, readInt } from '../base/sysctl';

export const TCP_BE_LIBERAL = 'net/netfilter/nf_conntrack_tcp_be_liberal';

/**
 * /proc/sys/net is the reading process's namespace's. Against another namespace (`netns`, a test and
 * development option) the value is read there with nsenter; own namespace: from `procRoot`.
 */
export function readTcpBeLiberal(opts: { netns?: string; procRoot?: string } = {}): boolean {
  if (opts.netns) {
    try {
      const out = execFileSync('nsenter', [`--net=${opts.netns}`, 'cat', `/proc/sys/${TCP_BE_LIBERAL}`], { encoding: 'utf8', timeout: 5000 });
      return (parseSysctlInt(out) ?? 0) !== 0;
    } catch {
      return false;
    }
  }
  return (readInt(path.join(opts.procRoot ?? '/proc/sys', TCP_BE_LIBERAL)) ?? 0) !== 0;
}
