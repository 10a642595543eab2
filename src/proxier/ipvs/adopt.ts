// Start-up adoption: the one time the IPVS mode lists the kernel. It makes sure kube-ipvs0 exists,
// then takes as ours every virtual service on an address bound to kube-ipvs0 or on a node IP (what
// upstream's IPVS mode or an earlier run of ours left), and kube-ipvs0's addresses, never anything
// in excludeCIDRs. The first full sync then changes only what differs: a virtual service that is
// already right is not touched, so its traffic never stops.
import type { IPFamily } from '../../core/types';
import type { IpvsHandle } from '../../native/ipvs/ipvs-types';
import { DUMMY_LINK, type LinkAddress, type RtnlHandle } from '../../native/rtnl/rtnl-types';
import { canonicalIP, destKey, familyOfIP, vsKey } from './addr';
import { Mirror } from './mirror';
import { nodeAddresses } from './node-addresses';


export interface Adoption {
  linkIndex: number;
  /** The address dump it read (the node's addresses, for NodePorts). */
  addressDump: LinkAddress[];
  mirror: Mirror;
  createdLink: boolean;
}

/** `known`: virtual services this process made (a re-adoption after kube-ipvs0 was lost keeps them though their VIPs are gone). */
export async function adopt(ipvs: Pick<IpvsHandle, 'dump'>, rtnl: Pick<RtnlHandle, 'ensureDummyLink' | 'addresses'>,
  families: readonly IPFamily[], excluded: (ip: string) => boolean, known: ReadonlySet<string> = new Set()): Promise<Adoption> {
  const link = await rtnl.ensureDummyLink(DUMMY_LINK);
  const addressDump = await rtnl.addresses();
  const mirror = new Mirror();
  const ours = (ip: string | null): ip is string => ip !== null && families.includes(familyOfIP(ip)) && !excluded(ip);
  for (const a of addressDump) {
    const ip = canonicalIP(a.address);
    if (a.linkIndex === link.index && ours(ip)) mirror.addresses.add(ip);
  }
  const local = new Set(nodeAddresses(addressDump, link.index, [], [], families).local);
  for (const s of await ipvs.dump()) {
    const ip = canonicalIP(s.address);
    if (!ours(ip)) continue;
    const service = { family: s.family, protocol: s.protocol, address: ip, port: s.port, scheduler: s.scheduler, flags: s.flags, timeout: s.timeout, prefixLength: s.prefixLength };
    if (!mirror.addresses.has(ip) && !local.has(ip) && !known.has(vsKey(service))) continue;
    const dests = new Map(s.destinations.map((d) => {
      const dest = { address: canonicalIP(d.address) ?? d.address, port: d.port, family: d.family, weight: d.weight, forward: d.forward };
      return [destKey(dest), dest] as const;
    }));
    mirror.services.set(vsKey(service), { service, dests });
  }
  return { linkIndex: link.index, addressDump, mirror, createdLink: link.created };
}
