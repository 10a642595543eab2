// Address helpers of the IPVS mode: the canonical text form IPVS and rtnetlink report addresses in
// (so a desired address and a dumped one compare as strings), CIDR membership, and the keys that
// name a virtual service and a real server. Pure; node:net only classifies and matches strings.
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { IPFamily } from '../../core/types';
import type { IpvsDestKey, IpvsFamily, IpvsServiceKey } from '../../native/ipvs-types';

/** Lower case, shortest IPv6 (as the kernel's dumps are formatted); null when not an IP. */
export function canonicalIP(ip: string): string | null {
  if (isIPv4(ip)) return ip.split('.').map((o) => String(Number(o))).join('.');
  if (!isIPv6(ip)) return null;
  // The WHATWG URL parser prints IPv6 hosts in RFC 5952 form.
  return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
}

export const ipvsFamily = (f: IPFamily): IpvsFamily => (f === 'IPv6' ? 6 : 4);
export const familyOfIP = (ip: string): IPFamily => (ip.includes(':') ? 'IPv6' : 'IPv4');

const hostPort = (address: string, port: number): string => (address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`);

/** `TCP 10.96.0.10:80`, `UDP [fd00::10]:53`: one virtual service. */
export const vsKey = (k: IpvsServiceKey): string => `${k.protocol} ${hostPort(k.address, k.port)}`;
/** `10.1.0.5:8080`, `[fd00::5]:8080`: one real server of a virtual service. */
export const destKey = (d: IpvsDestKey): string => hostPort(d.address, d.port);

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

/** A CIDR with a valid address and prefix length, or null. */
export function parseCidr(text: string): { ip: string; bits: number; family: IPFamily } | null {
  const slash = text.indexOf('/');
  if (slash <= 0) return null;
  const ip = text.slice(0, slash);
  const bitsText = text.slice(slash + 1);
  const family = isIPv4(ip) ? 'IPv4' : isIPv6(ip) ? 'IPv6' : null;
  if (!family || !/^\d{1,3}$/.test(bitsText)) return null;
  const bits = Number(bitsText);
  return bits <= (family === 'IPv4' ? 32 : 128) ? { ip, bits, family } : null;
}
