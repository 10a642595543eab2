// The node's own addresses as the IPVS mode uses them, from one rtnetlink address dump: which
// addresses NodePorts are served on (nodePortAddresses applied, as upstream's IPVS proxier), and
// which addresses live on other links than kube-ipvs0 (an externalIP or LoadBalancer IP that is one
// of them is not bound to kube-ipvs0, as upstream). Pure.
import type { IPFamily } from '../../core/types';
import type { LinkAddress } from '../../native/rtnl/rtnl-types';
import { cidrFamilyOf } from '../../core/ip';
import { CidrSet, canonicalIP, familyOfIP } from './addr';

export interface NodeAddresses {
  /** Addresses on links other than kube-ipvs0, without loopback and IPv6 link-local ones, sorted. */
  local: readonly string[];
  /** Where NodePorts are served, both families, sorted. */
  nodePortIPs: readonly string[];
}

const LOOPBACK = new CidrSet(['127.0.0.0/8', '::1/128']);
const LINK_LOCAL_V6 = new CidrSet(['fe80::/10']);

/**
 * Upstream's GetAllLocalAddressesExcept(kube-ipvs0), then NodePortAddresses per family: a list
 * with no entry of a family (empty, or `primary` on a node without an IP of it) matches every such
 * address; otherwise an address must be in one of the family's CIDRs (`primary` standing for the
 * node's primary IP of the family, as upstream's server.go rewrites it). Loopback never serves.
 */
export function nodeAddresses(dump: readonly LinkAddress[], ipvsLinkIndex: number, nodePortAddresses: readonly string[],
  primaryIPs: readonly string[], families: readonly IPFamily[]): NodeAddresses {
  const local = new Set<string>();
  for (const a of dump) {
    const ip = canonicalIP(a.address);
    if (!ip || a.linkIndex === ipvsLinkIndex || LOOPBACK.has(ip) || LINK_LOCAL_V6.has(ip)) continue;
    local.add(ip);
  }
  const nodePortIPs: string[] = [];
  for (const family of families) {
    const cidrs = familyCidrs(nodePortAddresses, primaryIPs, family);
    for (const ip of local) if (familyOfIP(ip) === family && (cidrs === null || cidrs.has(ip))) nodePortIPs.push(ip);
  }
  return { local: [...local].sort(), nodePortIPs: nodePortIPs.sort() };
}

function familyCidrs(list: readonly string[], primaryIPs: readonly string[], family: IPFamily): CidrSet | null {
  const cidrs: string[] = [];
  for (const entry of list) {
    if (entry === 'primary') {
      for (const ip of primaryIPs) if (canonicalIP(ip) && familyOfIP(ip) === family) cidrs.push(`${ip}/${family === 'IPv4' ? 32 : 128}`);
    } else if (cidrFamilyOf(entry) === family) {
      cidrs.push(entry);
    }
  }
  return cidrs.length === 0 ? null : new CidrSet(cidrs);
}
