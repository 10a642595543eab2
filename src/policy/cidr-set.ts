// Membership of an address in a list of CIDRs of either family (excludeCIDRs, nodePortAddresses),
// for the IPVS mode and --cleanup alike. node:net's BlockList does the matching.
import { BlockList, isIPv6 } from 'node:net';

/** Membership in a list of CIDRs (both families); an empty list holds nothing. */
export class CidrSet {
  private readonly list = new BlockList();
  readonly size: number;

  constructor(cidrs: readonly string[]) {
    for (const c of cidrs) {
      const [ip, bits] = c.split('/');
      this.list.addSubnet(ip, Number(bits), isIPv6(ip) ? 'ipv6' : 'ipv4');
    }
    this.size = cidrs.length;
  }

  has(ip: string): boolean {
    return this.size > 0 && this.list.check(ip, isIPv6(ip) ? 'ipv6' : 'ipv4');
  }
}
