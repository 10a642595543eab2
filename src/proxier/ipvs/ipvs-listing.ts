// The kernel's IPVS table as `ipvsadm -Ln` prints it, from our own dump (IpvsHandle.dump()), so an
// operator (and the demo) can read what the mode programmed without ipvsadm on the node.
import { hostPort } from '../../native/ipvs/ipvs-describe';
import type { IpvsForward, IpvsServiceState } from '../../native/ipvs/ipvs-types';
import { IPVS_SVC_F_PERSISTENT } from '../../native/ipvs/ipvs-types';

const FORWARD: Record<IpvsForward, string> = { masq: 'Masq', local: 'Local', tunnel: 'Tunnel', route: 'Route', bypass: 'Bypass' };

function serviceLine(s: IpvsServiceState): string {
  const persistent = s.flags & IPVS_SVC_F_PERSISTENT ? ` persistent ${s.timeout}${s.prefixLength !== (s.family === 4 ? 32 : 128) ? ` mask ${s.prefixLength}` : ''}` : '';
  return `${s.protocol.padEnd(4)} ${hostPort(s.address, s.port)} ${s.scheduler}${persistent}`;
}

/** Services sorted by protocol, address and port, each followed by its real servers (sorted). */
export function formatIpvsListing(services: readonly IpvsServiceState[]): string {
  const lines = [
    'Prot LocalAddress:Port Scheduler Flags',
    '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn',
  ];
  const key = (s: { address: string; port: number }): string => `${s.address.includes(':') ? 1 : 0} ${s.address} ${String(s.port).padStart(5, '0')}`;
  const sorted = [...services].sort((a, b) => `${a.protocol} ${key(a)}`.localeCompare(`${b.protocol} ${key(b)}`));
  for (const s of sorted) {
    lines.push(serviceLine(s));
    for (const d of [...s.destinations].sort((a, b) => key(a).localeCompare(key(b)))) {
      // ipvsadm's own layout: "  -> %-28s %-7s %-6d %-10u %-10u".
      lines.push(`  -> ${hostPort(d.address, d.port).padEnd(28)} ${FORWARD[d.forward].padEnd(7)} ${String(d.weight).padEnd(6)} ${String(d.activeConns).padEnd(10)} ${d.inactiveConns}`);
    }
  }
  return lines.join('\n');
}
