// The sysctls upstream's IPVS mode ensures at start-up (pkg/proxy/ipvs/proxier.go NewProxier), with
// the same conditions: conntrack for IPVS (so nftables sees and masquerades IPVS's connections),
// conn_reuse_mode=0 only on kernels from 4.1 up to 5.9 (5.9 fixed the 1 s delay it works around,
// kubernetes#93297), expire_nodest_conn and expire_quiescent_template (drop connections to deleted or
// weight-0 real servers), ip_forward, and with strictARP arp_ignore=1 / arp_announce=2 (no ARP answers
// for kube-ipvs0's addresses). Upstream fails to start when one cannot be set; so do we, naming it.
// They are per network namespace; net/ipv4/vs/ appears once the ip_vs module is loaded (opening the
// IPVS socket loads it), so this runs after that.
import { applySysctl, type SysctlOutcome, type SysctlRoots, type SysctlWrite } from '../base/sysctl';

export interface IpvsSysctl extends SysctlWrite {
  why: string;
}

/** [major, minor] of a kernel release such as "6.1.0-56-amd64"; undefined when unreadable. */
export function kernelVersion(release: string): [number, number] | undefined {
  const m = /^(\d+)\.(\d+)/.exec(release);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

const before = (v: [number, number], major: number, minor: number): boolean => v[0] < major || (v[0] === major && v[1] < minor);

/** What to write (pure). */
export function planIpvsSysctls(strictARP: boolean, kernelRelease: string): IpvsSysctl[] {
  const w = (name: string, value: number, why: string): IpvsSysctl => ({ name, value, raiseOnly: false, root: 'proc', why });
  const out = [w('net/ipv4/vs/conntrack', 1, 'IPVS connections must be tracked for masquerade')];
  const v = kernelVersion(kernelRelease);
  if (v && !before(v, 4, 1) && before(v, 5, 9)) out.push(w('net/ipv4/vs/conn_reuse_mode', 0, 'kernels before 5.9 delay reused connections by 1 s'));
  out.push(
    w('net/ipv4/vs/expire_nodest_conn', 1, 'connections to a deleted real server are dropped at once'),
    w('net/ipv4/vs/expire_quiescent_template', 1, 'affinity to a weight-0 real server expires'),
    w('net/ipv4/ip_forward', 1, 'Service traffic is forwarded to pods'),
  );
  if (strictARP) {
    out.push(
      w('net/ipv4/conf/all/arp_ignore', 1, 'strictARP: no ARP answers for kube-ipvs0 addresses'),
      w('net/ipv4/conf/all/arp_announce', 2, 'strictARP: best local source address in ARP requests'),
    );
  }
  return out;
}

export interface IpvsSysctlReport {
  outcomes: SysctlOutcome[];
  /** Why the conn_reuse_mode workaround was not applied, when it was not. */
  connReuseNote?: string;
  /** The first write that failed, as upstream's start-up error; undefined when all succeeded. */
  failure?: string;
}

export function applyIpvsSysctls(strictARP: boolean, kernelRelease: string, roots: SysctlRoots = {}): IpvsSysctlReport {
  const outcomes: SysctlOutcome[] = [];
  for (const s of planIpvsSysctls(strictARP, kernelRelease)) {
    const o = applySysctl(s, roots);
    outcomes.push(o);
    if (o.action === 'failed') return { outcomes, failure: `cannot set sysctl ${s.name}=${s.value} (${s.why}): ${o.error}`, connReuseNote: connReuseNote(kernelRelease) };
  }
  return { outcomes, connReuseNote: connReuseNote(kernelRelease) };
}

function connReuseNote(release: string): string | undefined {
  const v = kernelVersion(release);
  if (!v) return `kernel release ${JSON.stringify(release)} unreadable: net/ipv4/vs/conn_reuse_mode left as it is`;
  if (before(v, 4, 1)) return `kernel ${release} is older than 4.1: net/ipv4/vs/conn_reuse_mode cannot be set; IPVS may send reused connections to removed real servers`;
  if (!before(v, 5, 9)) return `kernel ${release} is 5.9 or newer: net/ipv4/vs/conn_reuse_mode left as it is`;
  return undefined;
}
